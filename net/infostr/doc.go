// Package infostr reads and writes Quake III's info strings, the
// \key\value\key\value lists of userinfo, serverinfo, systeminfo and
// server-browser answers (Info_ValueForKey, Info_SetValueForKey,
// Info_RemoveKey, Info_Validate), with their limits (MaxInfoString,
// BigInfoString). Keys compare ignoring ASCII case.
package infostr
