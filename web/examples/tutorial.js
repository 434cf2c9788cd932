// The example tutorial's language switch: the page's text and every element follow it.
const root = document.documentElement;
const toggle = document.getElementById('lang-switch');

function setLanguage(lang) {
  root.dataset.lang = lang;
  root.lang = lang === 'zh' ? 'zh-CN' : 'en';
  toggle.textContent = lang === 'zh' ? 'English' : '中文';
  toggle.lang = lang === 'zh' ? 'en' : 'zh-CN';
  for (const element of document.querySelectorAll('attention-visualizer')) element.setAttribute('lang', lang);
}

toggle.addEventListener('click', () => setLanguage(root.dataset.lang === 'zh' ? 'en' : 'zh'));
