/* Which ABI an object was built for, as its ELF header says: the machine
 * (e_machine), the class (address size) and the byte order. diff compares
 * layouts of one ABI; --compat compares a 64-bit ABI with the 32-bit ABI
 * of the same family (x86-64 and i386, AArch64 and ARM). */
#ifndef AU_ABI_H
#define AU_ABI_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* The machine's usual name ("x86-64", "AArch64"), or "machine N". buf
 * holds the latter. */
const char *au_machine_name(unsigned machine, char *buf, size_t n);

/* Two machines are one family, a 64-bit ABI and its 32-bit one (or one
 * machine with both classes, as s390 and RISC-V are). */
bool au_machine_same_family(unsigned a, unsigned b);

enum abi_match {
	ABI_SAME,              /* or not known well enough to tell */
	ABI_OTHER_MACHINE,     /* different families */
	ABI_OTHER_CLASS,       /* one family, 64-bit against 32-bit: --compat's pair */
	ABI_OTHER_BYTE_ORDER,
};

/* How two models' objects' ABIs relate; an unknown fact (raw BTF records
 * no machine and no class) matches anything. */
enum abi_match au_abi_match(const struct layout_model *a, const struct layout_model *b);

/* "x86-64, 64-bit, little-endian" (the facts a model knows), into buf. */
const char *au_abi_describe(const struct layout_model *m, char *buf, size_t n);

#endif
