/* Unit tests for strmap.c: the string map, the integer map with 16-byte
 * slots that holds a DWARF read's DIE -> type_info entries, and the string
 * set that interns a read's names. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

#include "check.h"

static void test_intmap(void)
{
	struct intmap m;
	au_intmap_init(&m);
	CHECK(au_intmap_get(&m, 42) == NULL);   /* empty, never grown */
	CHECK(sizeof(struct intmap_slot) == 16);
	/* Keys as a reader makes them: addresses a few bytes apart, and 0. */
	enum { N = 200000 };
	static int values[N];
	for (uint64_t i = 0; i < N; i++)
		au_intmap_put(&m, 0x7f0000001000ull + 13 * i, &values[i]);
	au_intmap_put(&m, 0, &values[0]);
	CHECK(m.count == N + 1);
	CHECK(m.capacity >= (N + 1) * 4 / 3 && (m.capacity & (m.capacity - 1)) == 0);
	size_t wrong = 0;
	for (uint64_t i = 0; i < N; i++)
		wrong += au_intmap_get(&m, 0x7f0000001000ull + 13 * i) != &values[i];
	CHECK(wrong == 0);
	CHECK(au_intmap_get(&m, 0) == &values[0]);
	/* Keys never put are absent, between and beyond the ones that are. */
	size_t found = 0;
	for (uint64_t i = 0; i < N; i++)
		found += au_intmap_get(&m, 0x7f0000001000ull + 13 * i + 1) != NULL;
	CHECK(found == 0);
	CHECK(au_intmap_get(&m, UINT64_MAX) == NULL);
	/* Putting a key again replaces its value and adds no entry. */
	au_intmap_put(&m, 0x7f0000001000ull, &values[7]);
	CHECK(au_intmap_get(&m, 0x7f0000001000ull) == &values[7]);
	CHECK(m.count == N + 1);
	au_intmap_deinit(&m);
	CHECK(m.slots == NULL && m.count == 0 && au_intmap_get(&m, 0) == NULL);

	/* Reserved for n, filling it to n never grows it; entries stay found. */
	au_intmap_init(&m);
	au_intmap_put(&m, 5, &values[5]);
	au_intmap_reserve(&m, 1000);
	size_t cap = m.capacity;
	CHECK(cap * 3 >= 1000 * 4 && au_intmap_get(&m, 5) == &values[5]);
	for (uint64_t k = 100; m.count < 1000; k++)
		au_intmap_put(&m, k, &values[k % 8]);
	CHECK(m.capacity == cap && au_intmap_get(&m, 5) == &values[5] && au_intmap_get(&m, 100) == &values[4]);
	au_intmap_reserve(&m, 10);   /* never shrinks */
	CHECK(m.capacity == cap);
	au_intmap_deinit(&m);
}

static void test_strmap(void)
{
	struct strmap m;
	au_strmap_init(&m);
	CHECK(au_strmap_get(&m, "x") == NULL);
	enum { N = 5000 };
	static char names[N][16];
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "class_%d", i);
		au_strmap_put(&m, names[i], names[i]);
	}
	size_t wrong = 0;
	char probe[16];
	for (int i = 0; i < N; i++) {
		/* Found by content, not by the key's address. */
		snprintf(probe, sizeof(probe), "class_%d", i);
		wrong += au_strmap_get(&m, probe) != names[i];
	}
	CHECK(wrong == 0);
	CHECK(au_strmap_get(&m, "class_") == NULL && au_strmap_get(&m, "class_5000") == NULL);
	/* Integer keys in their own map. */
	struct strmap im;
	au_strmap_init(&im);
	au_strmap_iput(&im, 7, names[1]);
	CHECK(au_strmap_iget(&im, 7) == names[1] && au_strmap_iget(&im, 8) == NULL);
	au_strmap_deinit(&im);
	au_strmap_deinit(&m);
}

static int ncopies;
static char copies[12000][16];   /* 5,002 then 6,000 strings */

static const char *copy_name(void *arg, const char *s)
{
	char (*to)[16] = arg;
	if (ncopies == 12000)
		abort();
	ncopies++;
	return strcpy(to[ncopies - 1], s);
}

static void test_strset(void)
{
	struct strset set;
	au_strset_init(&set);
	enum { N = 5000 };
	char probe[16];
	const char *first[N];
	/* Interning copies each string once, however often it is asked for:
	 * the map grows from 64 slots, past several doublings. */
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < N; i++) {
			snprintf(probe, sizeof(probe), "member_%d", i);
			const char *got = au_strset_intern(&set, probe, copy_name, copies);
			if (round == 0)
				first[i] = got;
			CHECK(got != probe && strcmp(got, probe) == 0 && got == first[i]);
		}
	CHECK(ncopies == N && set.count == N);
	CHECK((set.capacity & (set.capacity - 1)) == 0 && set.capacity * 3 >= N * 4);
	/* The empty string and a prefix of a member are strings of their own. */
	const char *e = au_strset_intern(&set, "", copy_name, copies);
	const char *m = au_strset_intern(&set, "member_", copy_name, copies);
	CHECK(ncopies == N + 2 && *e == '\0' && strcmp(m, "member_") == 0);
	CHECK(au_strset_intern(&set, "member_", copy_name, copies) == m);
	au_strset_deinit(&set);
	CHECK(set.tags == NULL && set.keys == NULL && set.count == 0);
	/* Reserved first, a set never grows while it is filled to that count. */
	au_strset_init(&set);
	au_strset_reserve(&set, 6000);
	size_t cap = set.capacity;
	CHECK(cap * 3 >= 6000 * 4);
	for (int i = 0; i < 6000; i++) {
		snprintf(probe, sizeof(probe), "n%d", i);
		au_strset_intern(&set, probe, copy_name, copies);
	}
	CHECK(set.capacity == cap && set.count == 6000);
	au_strset_deinit(&set);
}

int main(void)
{
	test_strset();
	test_intmap();
	test_strmap();
	return check_summary("test_strmap");
}
