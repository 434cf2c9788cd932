// The deck's own script (a file, so that a CSP without 'unsafe-inline' allows it).
/* global Reveal */
Reveal.initialize({ hash: false, transition: 'none' });
