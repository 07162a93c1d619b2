package main

import "os"

// The bench measures memory on Linux only; here it reports none.
func maxRSS(*os.ProcessState) int64 { return 0 }

func selfRSS() int64 { return 0 }
