module github.com/ordo-db/ordo

go 1.26.0

require (
	github.com/antzucaro/matchr v0.0.0-20221106193745-7bed6ef61ef9
	github.com/kljensen/snowball v0.10.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/redis/rueidis v1.0.79
	github.com/tidwall/btree v1.8.1
	github.com/tidwall/buntdb v1.3.0
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	golang.org/x/text v0.43.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/tidwall/gjson v1.14.3 // indirect
	github.com/tidwall/grect v0.1.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/rtred v0.1.2 // indirect
	github.com/tidwall/tinyqueue v0.1.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
)
