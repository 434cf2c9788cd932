// The sizes at which a matrix on screen changes form, shared by the views
// that draw it (views/view.js, views/heatmap.js), the editor's grids and the engine's updates
// (engine/updates.js recycles only the buffers of results no heatmap bins).

// A matrix beyond this many rows or columns is a canvas heatmap, not a table
// (n = 512 would be a quarter of a million DOM cells).
export const TABLE_LIMIT = 24;

// At most this many canvas pixels a side on screen: beyond it (n > 512) each
// pixel shows the mean of a block of cells, [rows, cols] = heatmapBin(...), so
// n = 4096 paints a quarter of a million pixels, not 16 million. The heatmap's
// box is at most 660 CSS px wide in the page's layouts (325 at 1280 px), so the
// browser's scaling dropped most pixels of a larger picture unseen, and every
// canvas changed is copied for the compositor on the next frame (in Chromium's
// software compositor here 17–35 ms a 1024² picture, 1–7 ms a 512² one). The
// PNG export (tools.js) is this picture scaled up.
export const HEATMAP_PIXELS = 512;

export const heatmapBin = (rows, cols) => [Math.ceil(rows / HEATMAP_PIXELS), Math.ceil(cols / HEATMAP_PIXELS)];
