#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

static const struct machine {
	unsigned em;
	const char *name;
	unsigned family;   /* the 64-bit member's e_machine */
} machines[] = {
	{ EM_X86_64, "x86-64", EM_X86_64 },
	{ EM_386, "i386", EM_X86_64 },
	{ EM_AARCH64, "AArch64", EM_AARCH64 },
	{ EM_ARM, "ARM", EM_AARCH64 },
	{ EM_PPC64, "PowerPC64", EM_PPC64 },
	{ EM_PPC, "PowerPC", EM_PPC64 },
	{ EM_SPARCV9, "SPARC64", EM_SPARCV9 },
	{ EM_SPARC, "SPARC", EM_SPARCV9 },
	{ EM_SPARC32PLUS, "SPARC v8+", EM_SPARCV9 },
	{ EM_S390, "S/390", EM_S390 },
	{ EM_RISCV, "RISC-V", EM_RISCV },
	{ EM_MIPS, "MIPS", EM_MIPS },
	{ EM_LOONGARCH, "LoongArch", EM_LOONGARCH },
	{ EM_IA_64, "IA-64", EM_IA_64 },
	{ EM_PARISC, "PA-RISC", EM_PARISC },
	{ EM_SH, "SuperH", EM_SH },
	{ EM_ALPHA, "Alpha", EM_ALPHA },
};

static const struct machine *find(unsigned em)
{
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (machines[i].em == em)
			return &machines[i];
	return NULL;
}

const char *au_machine_name(unsigned machine, char *buf, size_t n)
{
	const struct machine *m = find(machine);
	if (m)
		return m->name;
	snprintf(buf, n, "machine %u", machine);
	return buf;
}

bool au_machine_same_family(unsigned a, unsigned b)
{
	if (a == b)
		return true;
	const struct machine *x = find(a), *y = find(b);
	return x && y && x->family == y->family;
}

enum abi_match au_abi_match(const struct layout_model *a, const struct layout_model *b)
{
	if (a->byte_order && b->byte_order && a->byte_order != b->byte_order)
		return a->machine && b->machine && !au_machine_same_family(a->machine, b->machine) ? ABI_OTHER_MACHINE
												      : ABI_OTHER_BYTE_ORDER;
	if (a->machine && b->machine && !au_machine_same_family(a->machine, b->machine))
		return ABI_OTHER_MACHINE;
	if (a->address_size && b->address_size && a->address_size != b->address_size)
		return ABI_OTHER_CLASS;
	/* One family, one class, two machines: SPARC and SPARC v8+ are two
	 * 32-bit ABIs, no compat pair. */
	if (a->machine && b->machine && a->machine != b->machine)
		return ABI_OTHER_MACHINE;
	return ABI_SAME;
}

const char *au_abi_describe(const struct layout_model *m, char *buf, size_t n)
{
	char mb[32];
	snprintf(buf, n, "%s%s%s%s%s", m->machine ? au_machine_name(m->machine, mb, sizeof(mb)) : "",
		 m->machine && m->address_size ? ", " : "",
		 m->address_size == 8 ? "64-bit" : m->address_size == 4 ? "32-bit" : "",
		 (m->machine || m->address_size) && m->byte_order ? ", " : "",
		 m->byte_order == BYTE_ORDER_BIG ? "big-endian" : m->byte_order == BYTE_ORDER_LITTLE ? "little-endian" : "");
	return buf;
}
