module github.com/vivary-dev/vivary-go

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.50.0
	golang.org/x/text v0.44.0
)

require (
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/tools v0.52.0 // indirect
)
