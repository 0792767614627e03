/* --compat: a cause's facts (compat.h) in words, the one place that words
 * them: the text report prints the line, the JSON report its "detail". */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "compat.h"
#include "report.h"

static const char *abi_name(bool is_64)
{
	return is_64 ? "64-bit" : "32-bit";
}

/* "__u64 x", "char name[16]", "void *p": the member as a header declares it. */
static void put_decl(FILE *out, const struct compat_decl *d)
{
	const char *t = d->type ? d->type : "?", *dims = strchr(t, '[');
	int tl = dims ? (int)(dims - t) : (int)strlen(t);
	const char *sep = tl && t[tl - 1] == '*' ? "" : " ";
	fprintf(out, "%.*s%s%s%s", tl, t, sep, d->name, dims ? dims : "");
}

/* The chain, when it goes further than one name: " (a -> b -> long)". */
static void put_via(FILE *out, const char *chain)
{
	if (!chain || !strchr(chain, '>'))
		return;
	fputs(" (", out);
	for (const char *p = chain; *p; p++) {
		if (*p == '>')
			fputs(" -> ", out);
		else
			fputc(*p, out);
	}
	fputc(')', out);
}

static const char *chain_last(const char *chain)
{
	const char *e = chain ? strrchr(chain, '>') : NULL;
	return e ? e + 1 : chain;
}

/* "anonymous union holding x", or "member __u64 x". */
static void put_subject(FILE *out, const struct compat_cause *x)
{
	if (x->anonymous) {
		fprintf(out, "anonymous %s", au_layout_kind_name(x->anon_kind));
		if (x->anon_first)
			fprintf(out, " holding %s", x->anon_first);
	} else {
		fputs("member ", out);
		put_decl(out, &x->decl);
	}
}

static void put_sizes(FILE *out, const struct compat_cause *x)
{
	fprintf(out, "%" PRIu64 " bytes (64-bit) vs %" PRIu64 " (32-bit)", x->abi64.size, x->abi32.size);
}

/* A member whose size differs: what its type is, or why it differs. */
static void member_size_text(FILE *out, const struct compat_cause *x)
{
	const struct compat_abi *a64 = &x->abi64, *a32 = &x->abi32;
	fputs("member ", out);
	put_decl(out, &x->decl);
	switch (x->fact) {
	case COMPAT_FACT_MEMBER_WIDTH:
		fprintf(out, " is %s", x->cause == COMPAT_POINTER_WIDTH ? (x->array ? "an array of pointers" : "a pointer")
				       : x->cause == COMPAT_TIME_WIDTH ? "a time type"
				       : x->cause == COMPAT_SIZE_T_WIDTH ? "a size_t type"
				       : x->array ? "an array of long" : "long");
		put_via(out, x->via);
		if (!au_same_str(a64->declared, a32->declared))
			fprintf(out, ", declared %s on the 32-bit ABI", a32->declared);
		fputs(": ", out);
		break;
	case COMPAT_FACT_ANON_MEMBER_WIDTH:
		fprintf(out, ": an anonymous type whose member %s is %s: ", x->inner,
			x->cause == COMPAT_POINTER_WIDTH ? "a pointer" : "long");
		break;
	case COMPAT_FACT_MEMBER_TYPE_SIZE:
		fprintf(out, ": %s differs, ", x->type);
		break;
	case COMPAT_FACT_ARRAY_LENGTH:
		fprintf(out, ": %s (64-bit) vs %s (32-bit), an array whose length the header computes per ABI: ",
			a64->declared, a32->declared);
		break;
	case COMPAT_FACT_DECLARED_PER_ABI:
		fprintf(out, ": declared %s on the 64-bit ABI and %s on the 32-bit one, ", a64->declared, a32->declared);
		break;
	case COMPAT_FACT_TYPEDEF_PER_ABI:
		fprintf(out, ": %s is %s on the 64-bit ABI and %s on the 32-bit one, ", a64->declared,
			chain_last(a64->chain), chain_last(a32->chain));
		break;
	default:
		fprintf(out, ": %s (64-bit) vs %s (32-bit), ", a64->declared, a32->declared);
		break;
	}
	put_sizes(out, x);
}

/* Something at an offset that is no multiple of 8 on the 32-bit ABI. */
static void moved_text(FILE *out, const struct compat_cause *x)
{
	put_subject(out, x);
	fprintf(out, " at %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit): ", x->abi32.offset, x->abi64.offset);
	if (x->cause == COMPAT_ALIGN8)
		fprintf(out, "%s aligned to %u on the 32-bit ABI", x->itself ? "an 8-byte type" : "holds an 8-byte type,",
			x->align32);
	else
		fprintf(out, "holds %s, 8-aligned on the 64-bit ABI, %u-aligned on the 32-bit one",
			x->cause == COMPAT_POINTER_WIDTH ? "a pointer" : x->cause == COMPAT_TIME_WIDTH ? "a time type"
			: x->cause == COMPAT_SIZE_T_WIDTH ? "a size_t type" : "a long", x->align32);
}

/* A size that trailing padding made no multiple of 8 on the 32-bit ABI. */
static void trailing_padding_text(FILE *out, const struct compat_cause *x)
{
	if (x->fact == COMPAT_FACT_ANON_TRAILING_PADDING) {
		put_subject(out, x);
		fprintf(out, " is %" PRIu64 " bytes", x->abi32.size);
	} else if (x->within) {
		fprintf(out, "member %s: size %" PRIu64, x->within, x->abi32.size);
	} else {
		fprintf(out, "size %" PRIu64, x->abi32.size);
	}
	fprintf(out, " (32-bit) vs %" PRIu64 " (64-bit): trailing padding to a multiple of %u, not 8, as ", x->abi64.size,
		x->align32);
	put_decl(out, &x->decl);
	fprintf(out, " is aligned to %u on the 32-bit ABI", x->align32);
}

void au_report_compat_cause_text(FILE *out, const struct compat_cause *x)
{
	const struct compat_abi *side = x->only_64 ? &x->abi64 : &x->abi32;
	switch (x->fact) {
	case COMPAT_FACT_CHANGE:
		au_report_change_text(out, x->change);
		break;
	case COMPAT_FACT_TYPE_ONE_ABI:
		fprintf(out, "%s is declared only on the %s ABI", x->type_name, abi_name(x->only_64));
		break;
	case COMPAT_FACT_MEMBER_ONE_ABI:
		fputs("member ", out);
		put_decl(out, &x->decl);
		fprintf(out, " only on the %s ABI (offset %" PRIu64 ", size %" PRIu64 ")", abi_name(x->only_64),
			side->offset, side->size);
		break;
	case COMPAT_FACT_ENUMERATOR_ONE_ABI:
		fprintf(out, "enumerator %s only on the %s ABI", x->member, abi_name(x->only_64));
		break;
	case COMPAT_FACT_MEMBER_WIDTH:
	case COMPAT_FACT_ANON_MEMBER_WIDTH:
	case COMPAT_FACT_MEMBER_TYPE_SIZE:
	case COMPAT_FACT_ARRAY_LENGTH:
	case COMPAT_FACT_DECLARED_PER_ABI:
	case COMPAT_FACT_TYPEDEF_PER_ABI:
	case COMPAT_FACT_MEMBER_SIZE:
		member_size_text(out, x);
		break;
	case COMPAT_FACT_MOVED:
		moved_text(out, x);
		break;
	case COMPAT_FACT_TRAILING_PADDING:
	case COMPAT_FACT_ANON_TRAILING_PADDING:
		trailing_padding_text(out, x);
		break;
	case COMPAT_FACT_EMBEDDED:
		fputs("member ", out);
		put_decl(out, &x->decl);
		if (x->cause == COMPAT_TIME_WIDTH)
			fputs(" is a time type, whose layout differs", out);
		else
			fprintf(out, ": %s differs", x->type);
		break;
	case COMPAT_FACT_IOCTL_SIZE:
		fprintf(out, "enumerator %s is %#" PRIx64 " (64-bit) vs %#" PRIx64 " (32-bit): an ioctl number whose size "
			"field differs (%" PRIu64 " vs %" PRIu64 " bytes)", x->member, x->abi64.value, x->abi32.value,
			x->abi64.size, x->abi32.size);
		break;
	case COMPAT_FACT_UNEXPLAINED_MOVE:
		fputs("member ", out);
		put_decl(out, &x->decl);
		fprintf(out, " at %" PRIu64 " (32-bit) vs %" PRIu64 " (64-bit), and nothing before it explains the move",
			x->abi32.offset, x->abi64.offset);
		break;
	case COMPAT_FACT_UNEXPLAINED_SIZE:
		fprintf(out, "size %" PRIu64 " (64-bit) vs %" PRIu64 " (32-bit), with no member to blame", x->abi64.size,
			x->abi32.size);
		break;
	case COMPAT_FACT_LAYOUTS_DIFFER:
		fputs("the layouts differ", out);
		break;
	}
}
