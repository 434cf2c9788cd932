// Direct manipulation, as in Bret Victor's Tangle: the temperature on a
// slider (log scale) and the numbers of a matrix grid dragged sideways.
// Both the page (main.js) and the element (element.js) use these; a drag is
// "held" from pointer down to up, so that its caller can keep the whole drag
// as one edit (one undo entry, one URL and storage write, one change event).

import { parseNumber } from '../io/parse.js';
import { translate } from '../ui/i18n.js';
import { setAttr } from '../ui/dom.js';

// ---- the temperature slider ----

// Slider positions 0 … TEMPERATURE_STEPS stand for T = MIN · (MAX / MIN)^(p / STEPS):
// evenly spaced in log T, each step some 2.5 % (an arrow key's change), T = 1 in the middle.
const TEMPERATURE_MIN = 0.05;
const TEMPERATURE_MAX = 20;
const TEMPERATURE_STEPS = 240;
const LOG_RANGE = Math.log(TEMPERATURE_MAX / TEMPERATURE_MIN);

// A position's T, rounded to 3 significant digits (its text the shortest: 0.342, 1.05, 20).
export function temperatureAt(position) {
  return Number((TEMPERATURE_MIN * Math.exp((position / TEMPERATURE_STEPS) * LOG_RANGE)).toPrecision(3));
}

// The nearest position of T (> 0); temperatures outside 0.05 … 20 sit at an end.
export function sliderPosition(t) {
  const p = Math.round((Math.log(t / TEMPERATURE_MIN) / LOG_RANGE) * TEMPERATURE_STEPS);
  return Math.min(TEMPERATURE_STEPS, Math.max(0, p));
}

// A native range input for the temperature: keyboard operable (arrows, Page
// Up/Down, Home/End); screen readers hear the real T (aria-valuetext), not
// the position.
export function setUpTemperatureSlider(slider) {
  slider.type = 'range';
  slider.min = '0';
  slider.max = String(TEMPERATURE_STEPS);
  slider.step = '1';
}

// The slider at temperature t (a number; NaN or t ≤ 0, typed and invalid, leave it where it is).
export function showTemperature(slider, t, lang) {
  if (!(t > 0 && Number.isFinite(t))) return;
  const position = String(sliderPosition(t));
  if (slider.value !== position) slider.value = position;
  setAttr(slider, 'aria-valuetext', translate(lang, 'temperatureValueText', { n: String(t) }));
}

// onHold(true) on pointer down on `element`, onHold(false) when that pointer is up or cancelled.
export function holdWhilePressed(element, onHold) {
  element.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    onHold(true);
    const release = () => {
      window.removeEventListener('pointerup', release, true);
      window.removeEventListener('pointercancel', release, true);
      onHold(false);
    };
    window.addEventListener('pointerup', release, true);
    window.addEventListener('pointercancel', release, true);
  });
}

// ---- numbers dragged sideways ----

// Per pixel of horizontal drag; Shift for fine. Per Alt+↑/↓ on a cell; with Shift, fine.
const SCRUB_STEP = 0.01;
const SCRUB_FINE_STEP = 0.001;
const KEY_STEP = 0.1;
const KEY_FINE_STEP = 0.01;
// A pointer that moves less than this before it is released is a click (to type in the cell).
const DRAG_THRESHOLD_PX = 3;

const decimalsOf = (step) => Math.max(0, -Math.floor(Math.log10(step) + 1e-9));

// The shortest text of `value` rounded to `step`'s decimals, or null when
// that is not a finite number (a cell never gets a bad value from a drag).
export function steppedText(value, step) {
  const rounded = Number(value.toFixed(decimalsOf(step)));
  return Number.isFinite(rounded) ? String(rounded) : null;
}

// Makes the number cells of a grid (inputs with data-r, data-c) draggable
// and steppable. A cell without focus: pointer down and drag sideways
// changes its number, a click without a drag puts the cursor in it (its
// text selected). A focused cell is edited as text, as usual.
// Alt+↑/↓ on a cell adds or takes a step. onCell(r, c, text) gets every new
// text; onHold(true/false) brackets a press that may become a drag (from
// the press, so that what a drag needs is ready before its first move).
export function makeScrubbable(table, { onCell, onHold }) {
  const setCell = (input, text) => {
    input.value = text;
    onCell(Number(input.dataset.r), Number(input.dataset.c), text);
  };

  table.addEventListener('pointerdown', (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || input.dataset.r === undefined) return;
    if (event.button !== 0 || input.getRootNode().activeElement === input) return;
    const start = parseNumber(input.value.trim());
    if (!start.ok) return; // a cell that is not a number is typed in, not dragged
    event.preventDefault(); // no focus, no text selection while it may be a drag
    input.setPointerCapture(event.pointerId);
    onHold(true);
    let value = start.value; // unrounded, so a change of Shift mid-drag does not jump
    let lastX = event.clientX;
    let dragging = false;
    const move = (e) => {
      if (!dragging) {
        if (Math.abs(e.clientX - event.clientX) < DRAG_THRESHOLD_PX) return;
        dragging = true;
        lastX = event.clientX;
        input.classList.add('scrubbing');
      }
      const next = value + (e.clientX - lastX) * (e.shiftKey ? SCRUB_FINE_STEP : SCRUB_STEP);
      lastX = e.clientX;
      const text = steppedText(next, e.shiftKey ? SCRUB_FINE_STEP : SCRUB_STEP);
      if (text === null) return;
      value = next;
      if (text !== input.value) setCell(input, text);
    };
    // the end: let go, cancelled, or the capture lost (the cell taken out of the page)
    const ends = ['pointerup', 'pointercancel', 'lostpointercapture'];
    const end = (e) => {
      input.removeEventListener('pointermove', move);
      for (const type of ends) input.removeEventListener(type, end);
      onHold(false);
      if (dragging) input.classList.remove('scrubbing');
      else if (e.type === 'pointerup') {
        input.focus();
        input.select();
      }
    };
    input.addEventListener('pointermove', move);
    for (const type of ends) input.addEventListener(type, end);
  });

  table.addEventListener('keydown', (event) => {
    const input = event.target;
    if (!event.altKey || event.ctrlKey || event.metaKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    if (!(input instanceof HTMLInputElement) || input.dataset.r === undefined) return;
    event.preventDefault();
    const parsed = parseNumber(input.value.trim());
    if (!parsed.ok) return;
    const step = event.shiftKey ? KEY_FINE_STEP : KEY_STEP;
    const text = steppedText(parsed.value + (event.key === 'ArrowUp' ? step : -step), step);
    if (text !== null && text !== input.value) setCell(input, text);
  });
}
