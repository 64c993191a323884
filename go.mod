module github.com/echomq/emqtop

go 1.26.0

require (
	github.com/oklog/ulid/v2 v2.1.2 // indirect
	github.com/valkey-io/valkey-go v1.0.80 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
