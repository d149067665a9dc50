module github.com/ordo-db/ordo

go 1.26
