package guard

import (
	"runtime"
	"strings"
)

// onWindows turns on the Windows name rule of RelPathShape. The rule is
// portable code (WindowsNameFault), tested on every system; only on
// Windows does a path break it, since elsewhere "aux.md" and "a:b.md" are
// plain names.
const onWindows = runtime.GOOS == "windows"

// WindowsNameFault says why Windows would not read seg, one segment of a
// path, as the one plain entry it spells, or "" when it would: a colon
// names an alternate data stream ("note.md:secret") or a drive; <>"| and
// control characters are not allowed in a name (nor * and ?, but those
// are a path filter's wildcards, and no file can be named by them); a
// trailing dot or space is
// dropped by Win32 (so "secret.md." opens "secret.md"); and a reserved
// device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without an
// extension, in any case) opens the device, not a file.
func WindowsNameFault(seg string) string {
	for _, r := range seg {
		switch {
		case r == ':':
			return "a ':' (Windows reads it as a stream or a drive)"
		case r < 0x20 || strings.ContainsRune(`<>"|`, r):
			return "a character Windows does not allow in a name"
		}
	}
	if strings.HasSuffix(seg, ".") && seg != "." && seg != ".." || strings.HasSuffix(seg, " ") {
		return "a name ending in a dot or a space (Windows drops them)"
	}
	if reservedDevice(seg) {
		return "a Windows device name (CON, NUL, COM1 and the like)"
	}
	return ""
}

// reservedDevice reports a name Win32 opens as a device: the part before
// the first dot, trailing spaces dropped, is one of the reserved names.
func reservedDevice(seg string) bool {
	stem, _, _ := strings.Cut(seg, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(stem) >= 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) {
		switch stem[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// windowsNameFault is WindowsNameFault of p's first segment that breaks it.
func windowsNameFault(p string) string {
	for _, seg := range strings.Split(p, "/") {
		if why := WindowsNameFault(seg); why != "" {
			return why
		}
	}
	return ""
}
