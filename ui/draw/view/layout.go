package view

import (
	"image"
	"math"
)

// The UI scale: how large text, buttons and panels are drawn, the same
// in every window layer (ui_scale, docs/client-window.md).
const (
	// MinUIScale and MaxUIScale bound the UI scale.
	MinUIScale, MaxUIScale = 0.5, 4.0
	// MinAutoUIScale is the smallest scale UIScale picks by itself.
	MinAutoUIScale = 0.75
)

// UIScale returns the UI scale for a w×h window. set > 0 is the player's
// choice (ui_scale), clamped to MinUIScale..MaxUIScale. 0 picks it from
// the window: the smaller of w/1280 and h/720, rounded down to a
// quarter, at least MinAutoUIScale — 1 at 1280×720 and 1366×768, 1.5 at
// 1920×1080, 2 at 2560×1440, 3 at 3840×2160 — so a projector's big
// window gets big text and 1280×720 keeps today's sizes.
func UIScale(set float64, w, h int) float64 {
	if set > 0 {
		return min(MaxUIScale, max(MinUIScale, set))
	}
	if w <= 0 || h <= 0 {
		return 1
	}
	s := min(float64(w)/1280, float64(h)/720)
	return min(MaxUIScale, max(MinAutoUIScale, math.Floor(s*4)/4))
}

// Classroom is where the classroom view (docs/classroom.md) puts its
// parts on a window: a header, three world panes (Player 1, the
// server, Player 2) with a lane between each player and the server,
// under each pane its counters and switches, under each lane its
// counts, and the decoded-packet panel across the bottom. Every size
// grows with the UI scale; the world panes take whatever height the
// rest leaves.
type Classroom struct {
	UI       float64 // the UI scale it was laid out at
	FontSize float64 // text size, pixels
	LineH    int     // a line of text
	ButtonH  int     // a switch's height
	Pad      int     // the gap between parts
	Header   image.Rectangle
	Title    [3]image.Rectangle // the panes' titles
	Pane     [3]image.Rectangle // the world panes: P1, server, P2
	Lane     [2]image.Rectangle // P1's lane, P2's lane
	Info     [3]image.Rectangle // under each pane: counters, switches, lagometer
	LaneInfo [2]image.Rectangle // under each lane: counts and legend
	Panel    image.Rectangle    // the decoded packet, or the hints
	Lagom    int                // the lagometer's side
}

// Lines of text the classroom layout keeps room for.
const (
	classInfoLines   = 4 // a player's counters
	classSwitchRows  = 5 // a player's switches, two a row (the fifth: the carrier of reliable commands and its counter)
	classPanelLines  = 7 // the panel's smallest height, in lines
	classLaneShare   = 12
	classTextSize    = 14 // at UI scale 1
	classLineSize    = 18
	classButtonSize  = 24
	classHeaderSize  = 30
	classLagomSize   = 72
	classMinWorldPct = 30 // the world panes never get less of the height
)

// ClassroomLayout lays the classroom view out on a w×h window at UI
// scale ui.
func ClassroomLayout(w, h int, ui float64) Classroom {
	if ui <= 0 {
		ui = 1
	}
	px := func(n float64) int { return int(math.Round(n * ui)) }
	l := Classroom{UI: ui, FontSize: classTextSize * ui, LineH: px(classLineSize), ButtonH: px(classButtonSize), Pad: max(2, px(4)), Lagom: px(classLagomSize)}
	pad := l.Pad
	headerH := px(classHeaderSize)
	l.Header = image.Rect(0, 0, w, headerH)
	laneW := w * classLaneShare / 100
	paneW := (w - 2*laneW - 2*pad) / 3
	paneX := [3]int{pad, pad + paneW + laneW, pad + 2*(paneW+laneW)}
	laneX := [2]int{pad + paneW, pad + 2*paneW + laneW}

	titleTop := headerH
	worldTop := titleTop + l.LineH + pad
	infoH := classInfoLines*l.LineH + pad + classSwitchRows*(l.ButtonH+pad) + l.Lagom + pad
	panelH := classPanelLines*l.LineH + 2*pad
	worldH := h - worldTop - pad - infoH - pad - panelH - pad
	if minH := h * classMinWorldPct / 100; worldH < minH {
		worldH = minH
	}
	infoTop := worldTop + worldH + pad
	panelTop := infoTop + infoH + pad
	for i := range 3 {
		l.Title[i] = image.Rect(paneX[i], titleTop, paneX[i]+paneW, worldTop)
		l.Pane[i] = image.Rect(paneX[i], worldTop, paneX[i]+paneW, worldTop+worldH)
		l.Info[i] = image.Rect(paneX[i], infoTop, paneX[i]+paneW, infoTop+infoH)
	}
	for i := range 2 {
		l.Lane[i] = image.Rect(laneX[i], worldTop, laneX[i]+laneW, worldTop+worldH)
		l.LaneInfo[i] = image.Rect(laneX[i], infoTop, laneX[i]+laneW, infoTop+infoH)
	}
	l.Panel = image.Rect(pad, panelTop, w-pad, max(panelTop, h-pad))
	return l
}
