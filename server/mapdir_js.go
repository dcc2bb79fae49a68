package server

// defaultMapDir is sv_mapdir's default in the browser build: none. A
// page has no files (docs/web.md), so its servers — the window's local
// one and the classroom's — play the embedded arenas only.
const defaultMapDir = ""
