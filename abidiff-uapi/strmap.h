/* An open-addressing hash map from strings (or 64-bit integers) to
 * pointers. Pairing thousands of types by name must cost O(n), not O(n^2).
 * Keys are not copied: they must outlive the map (they live in an arena). */
#ifndef AU_STRMAP_H
#define AU_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 24 bytes: a reader's DIE map holds millions of them. */
struct strmap_slot {
	const char *key;    /* NULL: empty; au_strmap_int_key in a used slot of an integer map */
	uint64_t k;         /* string maps: the key's hash; integer maps: the key */
	void *value;
};

extern const char au_strmap_int_key[];

struct strmap {
	struct strmap_slot *slots;
	size_t capacity;    /* a power of two */
	size_t count;
};

void au_strmap_init(struct strmap *m);
void au_strmap_deinit(struct strmap *m);
/* Room for n entries in all, so that filling the map to n never grows it
 * (each growth zeroes a table twice the size and rehashes every entry). */
void au_strmap_reserve(struct strmap *m, size_t n);
/* The value stored for key, or NULL. */
void *au_strmap_get(const struct strmap *m, const char *key);
/* Inserts or replaces. */
void au_strmap_put(struct strmap *m, const char *key, void *value);
/* The slot of key, inserted with a NULL value when absent: one hash and one
 * probe for a lookup that may insert. Valid until the next insertion. */
struct strmap_slot *au_strmap_slot(struct strmap *m, const char *key);
/* Integer-keyed variants (for DIE offsets); a map is one kind or the other. */
void *au_strmap_iget(const struct strmap *m, uint64_t key);
void au_strmap_iput(struct strmap *m, uint64_t key, void *value);

/* An integer-keyed map with 16-byte slots, for the one map that holds a
 * slot per type DIE (a reader's DIE -> type_info map): values are never
 * NULL, and a NULL value marks an empty slot. */
struct intmap_slot {
	uint64_t key;
	void *value;
};

struct intmap {
	struct intmap_slot *slots;
	size_t capacity;    /* a power of two */
	size_t count;
};

void au_intmap_init(struct intmap *m);
void au_intmap_deinit(struct intmap *m);
/* Room for n entries in all, so that filling the map to n never grows it. */
void au_intmap_reserve(struct intmap *m, size_t n);
/* The value stored for key, or NULL. */
void *au_intmap_get(const struct intmap *m, uint64_t key);
/* Inserts or replaces; value must not be NULL. */
void au_intmap_put(struct intmap *m, uint64_t key, void *value);

/* A set of strings for interning: a 32-bit tag per slot (0: empty) in one
 * array and the keys in another, so that only the tags are zeroed and a
 * probe scans 16 tags a cache line; the key is read when its tag matches.
 * Half the bytes of a strmap's 24-byte slots for the reader's names, the
 * largest map of a read (34,000 names of a whole UAPI). */
struct strset {
	uint32_t *tags;
	const char **keys;  /* unset where the tag is 0 */
	size_t capacity;    /* a power of two, at most 2^31 */
	size_t count;
};

void au_strset_init(struct strset *set);
void au_strset_deinit(struct strset *set);
/* Room for n strings in all (see au_strmap_reserve). */
void au_strset_reserve(struct strset *set, size_t n);
/* The set's string equal to s; when there is none, copy(arg, s) is added and
 * returned. s must not be NULL. */
const char *au_strset_intern(struct strset *set, const char *s, const char *(*copy)(void *arg, const char *s),
			     void *arg);

#endif
