package policy

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Cancelling a run ends the whole tree it started, as killing the process
// group does on Linux: here cmd.exe starts ping.exe, and both end.
func TestRunTreeEndsTheWholeTreeOnCancel(t *testing.T) {
	before := processes(t, "ping.exe")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, `C:\windows\system32\cmd.exe`, "/c", "ping -n 120 127.0.0.1 >NUL")
	done := make(chan error, 1)
	go func() { done <- runTree(cmd) }()
	var pings []uint32
	for deadline := time.Now().Add(60 * time.Second); len(pings) == 0; time.Sleep(20 * time.Millisecond) {
		for _, p := range processes(t, "ping.exe") {
			if !contains(before, p) {
				pings = append(pings, p)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("ping.exe never started")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the cancelled run never returned")
	}
	for _, pid := range pings {
		for deadline := time.Now().Add(60 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the grandchild %d survived the cancel", pid)
			}
		}
	}
}

// processes lists the ids of the running processes named name.
func processes(t *testing.T, name string) []uint32 {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(snap)
	var pe windows.ProcessEntry32
	pe.Size = uint32(unsafe.Sizeof(pe))
	var out []uint32
	for err = windows.Process32First(snap, &pe); err == nil; err = windows.Process32Next(snap, &pe) {
		if strings.EqualFold(windows.UTF16ToString(pe.ExeFile[:]), name) {
			out = append(out, pe.ProcessID)
		}
	}
	return out
}

func alive(pid uint32) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

func contains(s []uint32, v uint32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
