package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// gitPath is the fixed search path git.exe is found and run on: where the
// Git for Windows installer puts it, for all users or for one; the user's
// PATH is not inherited.
var gitPath = strings.Join([]string{
	filepath.Join(os.Getenv("ProgramFiles"), "Git", "cmd"),
	filepath.Join(os.Getenv("LocalAppData"), "Programs", "Git", "cmd"),
}, string(filepath.ListSeparator))

const gitExe = "git.exe"

// osGitEnv: Windows programs need SystemRoot (sockets, the C runtime).
func osGitEnv() []string { return []string{"SystemRoot=" + os.Getenv("SystemRoot")} }

// runTree runs cmd suspended, puts it in a job object that ends every
// process in it when the job's last handle closes, resumes it, and ends
// the whole job when cmd's context ends: nothing git.exe started outlives
// the call.
func runTree(cmd *exec.Cmd) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(job)
	var limit windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	limit.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&limit)), uint32(unsafe.Sizeof(limit))); err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	cmd.Cancel = func() error { return windows.TerminateJobObject(job, 1) }
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := inJob(job, cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return cmd.Wait()
}

// inJob assigns the suspended process pid to job, then resumes its threads.
func inJob(job windows.Handle, pid int) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	err = windows.AssignProcessToJobObject(job, p)
	windows.CloseHandle(p)
	if err != nil {
		return err
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(unsafe.Sizeof(te))
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return err
		}
	}
	return nil
}
