// The element's events (ready, change, computed, replace): each a CustomEvent with its detail
// that bubbles and is composed, as `change` always was (types/attention-visualizer.d.ts), so
// that a listener on a host page's ancestor or beyond a shadow root hears each alike.

import { copyState } from '../state/json.js';

export function emit(element, type, detail) {
  element.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}

// An event's detail, whose `state` is a copy of `shown` (the state shown when the event was
// sent), made when first read (at n = 4096 a copy costs ~10 ms, and the page sends an event
// for every edit). States are replaced, never changed.
export function stateDetail(shown) {
  let copy;
  return {
    get state() {
      copy ??= shown && copyState(shown);
      return copy;
    },
  };
}
