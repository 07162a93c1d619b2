//go:build vivary_faults

package main

import "github.com/vivary-dev/vivary-go/internal/faults"

// A binary built with -tags vivary_faults stops where VIVARY_FAULT says, for
// the crash tests; see package faults.
func init() { faults.Install() }
