package engine

// Reserve sizes the database's tables for keys keys, expires of them
// with a TTL, before a load adds them (the AOF's base records the
// counts): the keyspace then takes them without rehashing or growing its
// entry slab (dict.Dict.Reserve). Only a hint: it changes no data, and
// counts above what arrives cost the tables' unused room.
func (db *DB) Reserve(keys, expires int) {
	db.keys.Reserve(keys)
	if expires > 0 {
		db.expires.Reserve(expires)
	}
}
