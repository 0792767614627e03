#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "xmem.h"

/* Eight bytes a step (the length from strlen, which libc vectorises), each
 * word mixed by a multiply; the tail is zero-padded and the length folded
 * in, so "a" and "a\0..." cannot meet. Byte-wise FNV-1a cost a fifth of
 * the string maps' time on a whole UAPI. */
static uint64_t hash_str(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = 1469598103934665603ULL ^ (n * 0x9e3779b97f4a7c15ULL), w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 29);
}

static uint64_t hash_int(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

void au_strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void au_strmap_deinit(struct strmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

const char au_strmap_int_key[] = "";

static struct strmap_slot *find(const struct strmap *m, const char *key, uint64_t k, uint64_t h)
{
	size_t mask = m->capacity - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key)
			return s;
		if (s->k == k && (s->key == key || key == au_strmap_int_key || strcmp(s->key, key) == 0))
			return s;
	}
}

static uint64_t slot_hash(const struct strmap_slot *s)
{
	return s->key == au_strmap_int_key ? hash_int(s->k) : s->k;
}

/* Rehashes into a table of cap slots (a power of two, more than count). */
static void resize(struct strmap *m, size_t cap)
{
	struct strmap_slot *old = m->slots;
	size_t oldcap = m->capacity;
	m->slots = au_xcalloc(cap, sizeof(*m->slots));
	m->capacity = cap;
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].key)
			*find(m, old[i].key, old[i].k, slot_hash(&old[i])) = old[i];
	}
	free(old);
}

static void grow(struct strmap *m)
{
	resize(m, m->capacity ? m->capacity * 2 : 64);
}

void au_strmap_reserve(struct strmap *m, size_t n)
{
	size_t cap = m->capacity ? m->capacity : 64;
	while (n * 4 > cap * 3)   /* the load factor of slot() */
		cap *= 2;
	if (cap > m->capacity)
		resize(m, cap);
}

/* The slot of key, inserted when absent (the key, k, a NULL value).
 * key: the string, or au_strmap_int_key; k: the string's hash, or the integer. */
static struct strmap_slot *slot(struct strmap *m, const char *key, uint64_t k, uint64_t h)
{
	if ((m->count + 1) * 4 > m->capacity * 3)
		grow(m);
	struct strmap_slot *s = find(m, key, k, h);
	if (!s->key) {
		s->key = key;
		s->k = k;
		s->value = NULL;
		m->count++;
	}
	return s;
}

void *au_strmap_get(const struct strmap *m, const char *key)
{
	if (!m->capacity)
		return NULL;
	uint64_t h = hash_str(key);
	struct strmap_slot *s = find(m, key, h, h);
	return s->key ? s->value : NULL;
}

void au_strmap_put(struct strmap *m, const char *key, void *value)
{
	uint64_t h = hash_str(key);
	slot(m, key, h, h)->value = value;
}

/* The slot of key, inserted when absent (key, its hash, a NULL value), so
 * that a lookup followed by an insertion hashes and probes once. The caller
 * sets the value of a new slot, and may replace its key by a copy of the
 * same string. Valid until the next insertion. */
struct strmap_slot *au_strmap_slot(struct strmap *m, const char *key)
{
	uint64_t h = hash_str(key);
	return slot(m, key, h, h);
}

void *au_strmap_iget(const struct strmap *m, uint64_t key)
{
	if (!m->capacity)
		return NULL;
	struct strmap_slot *s = find(m, au_strmap_int_key, key, hash_int(key));
	return s->key ? s->value : NULL;
}

void au_strmap_iput(struct strmap *m, uint64_t key, void *value)
{
	slot(m, au_strmap_int_key, key, hash_int(key))->value = value;
}

void au_intmap_init(struct intmap *m)
{
	memset(m, 0, sizeof(*m));
}

void au_intmap_deinit(struct intmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static struct intmap_slot *int_find(const struct intmap *m, uint64_t key)
{
	size_t mask = m->capacity - 1;
	for (size_t i = hash_int(key) & mask;; i = (i + 1) & mask) {
		struct intmap_slot *s = &m->slots[i];
		if (!s->value || s->key == key)
			return s;
	}
}

void *au_intmap_get(const struct intmap *m, uint64_t key)
{
	return m->capacity ? int_find(m, key)->value : NULL;
}

static void int_resize(struct intmap *m, size_t cap)
{
	size_t oldcap = m->capacity;
	struct intmap_slot *old = m->slots;
	m->capacity = cap;
	m->slots = au_xcalloc(m->capacity, sizeof(*m->slots));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].value)
			*int_find(m, old[i].key) = old[i];
	free(old);
}

void au_intmap_reserve(struct intmap *m, size_t n)
{
	size_t cap = m->capacity ? m->capacity : 64;
	while (n * 4 > cap * 3)   /* the load factor of au_intmap_put */
		cap *= 2;
	if (cap > m->capacity)
		int_resize(m, cap);
}

void au_intmap_put(struct intmap *m, uint64_t key, void *value)
{
	if (!value)
		abort();   /* NULL marks an empty slot */
	if ((m->count + 1) * 4 > m->capacity * 3)
		int_resize(m, m->capacity ? m->capacity * 2 : 64);
	struct intmap_slot *s = int_find(m, key);
	if (!s->value)
		m->count++;
	s->key = key;
	s->value = value;
}

void au_strset_init(struct strset *set)
{
	memset(set, 0, sizeof(*set));
}

void au_strset_deinit(struct strset *set)
{
	free(set->tags);
	free(set->keys);
	memset(set, 0, sizeof(*set));
}

/* Bit 31 set, so never 0; the slot index is its low bits. */
static uint32_t str_tag(const char *s)
{
	return (uint32_t)hash_str(s) | 0x80000000u;
}

/* The slot of s (tag t) or the empty slot where it belongs. */
static size_t set_find(const struct strset *set, const char *s, uint32_t t)
{
	size_t mask = set->capacity - 1;
	for (size_t i = t & mask;; i = (i + 1) & mask)
		if (!set->tags[i] || (set->tags[i] == t && (set->keys[i] == s || strcmp(set->keys[i], s) == 0)))
			return i;
}

static void set_resize(struct strset *set, size_t cap)
{
	uint32_t *tags = set->tags;
	const char **keys = set->keys;
	size_t oldcap = set->capacity;
	set->tags = au_xcalloc(cap, sizeof(*set->tags));
	if (cap > SIZE_MAX / sizeof(*set->keys))
		abort();
	set->keys = au_xmalloc(cap * sizeof(*set->keys));   /* read only where a tag is set */
	set->capacity = cap;
	size_t mask = cap - 1;
	for (size_t i = 0; i < oldcap; i++) {
		if (!tags[i])
			continue;
		size_t j = tags[i] & mask;   /* the keys are distinct: the first empty slot */
		while (set->tags[j])
			j = (j + 1) & mask;
		set->tags[j] = tags[i];
		set->keys[j] = keys[i];
	}
	free(tags);
	free(keys);
}

void au_strset_reserve(struct strset *set, size_t n)
{
	size_t cap = set->capacity ? set->capacity : 64;
	while (n * 4 > cap * 3 && cap < ((size_t)1 << 31))
		cap *= 2;
	if (cap > set->capacity)
		set_resize(set, cap);
}

const char *au_strset_intern(struct strset *set, const char *s, const char *(*copy)(void *arg, const char *s),
			     void *arg)
{
	if ((set->count + 1) * 4 > set->capacity * 3) {
		if (set->capacity >= ((size_t)1 << 31))
			abort();   /* two billion names: out of memory long before */
		set_resize(set, set->capacity ? set->capacity * 2 : 64);
	}
	uint32_t t = str_tag(s);
	size_t i = set_find(set, s, t);
	if (!set->tags[i]) {
		set->keys[i] = copy(arg, s);
		set->tags[i] = t;
		set->count++;
	}
	return set->keys[i];
}
