/* keyctl-dh: compute a Diffie-Hellman value in the kernel with KEYCTL_DH_COMPUTE, passing
 * struct keyctl_dh_params from the patched <linux/keyctl.h>. Built twice, as C and as C++:
 * C fills the union through its C name `private`, C++ through `priv` (`private` is a C++ keyword),
 * so equal outputs show that both spellings reach the same kernel ABI.
 * Prints "keyctl-dh <member> <hex>" and exits 0, or prints the failing step and exits 1. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/keyctl.h>

/* RFC 3526 group 5 (1536-bit MODP): the kernel rejects primes under 1536 bits. */
static const char prime_hex[] =
	"FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD1"
	"29024E088A67CC74020BBEA63B139B22514A08798E3404DD"
	"EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245"
	"E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
	"EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3D"
	"C2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
	"83655D23DCA3AD961C62F356208552BB9ED529077096966D"
	"670C354E4ABC9804F1746C08CA237327FFFFFFFFFFFFFFFF";
/* A fixed private value, so that the host can compute the expected result. */
static const char private_hex[] =
	"0123456789ABCDEFFEDCBA98765432100F1E2D3C4B5A69788796A5B4C3D2E1F0";
static const unsigned char base[] = { 2 };

static size_t from_hex(const char *hex, unsigned char *out)
{
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned int byte;

		sscanf(hex + 2 * i, "%2x", &byte);
		out[i] = (unsigned char)byte;
	}
	return n;
}

static long add_user_key(const char *desc, const unsigned char *payload, size_t len)
{
	return syscall(SYS_add_key, "user", desc, payload, len, (long)KEY_SPEC_PROCESS_KEYRING);
}

int main(void)
{
	unsigned char prime[sizeof(prime_hex) / 2], priv[sizeof(private_hex) / 2], out[512];
	size_t prime_len = from_hex(prime_hex, prime), priv_len = from_hex(private_hex, priv);
	struct keyctl_dh_params params;
	long prime_id, priv_id, base_id, len;

	prime_id = add_user_key("abidiff-uapi:dh-prime", prime, prime_len);
	priv_id = add_user_key("abidiff-uapi:dh-private", priv, priv_len);
	base_id = add_user_key("abidiff-uapi:dh-base", base, sizeof(base));
	if (prime_id < 0 || priv_id < 0 || base_id < 0) {
		printf("keyctl-dh: add_key: %s\n", strerror(errno));
		return 1;
	}
	memset(&params, 0, sizeof(params));
#ifdef __cplusplus
	params.priv = (__s32)priv_id;
	const char *member = "priv";
#else
	params.private = (__s32)priv_id;
	const char *member = "private";
#endif
	params.prime = (__s32)prime_id;
	params.base = (__s32)base_id;
	len = syscall(SYS_keyctl, (long)KEYCTL_DH_COMPUTE, &params, out, (long)sizeof(out), 0L);
	if (len < 0) {
		printf("keyctl-dh: KEYCTL_DH_COMPUTE: %s\n", strerror(errno));
		return 1;
	}
	printf("keyctl-dh %s ", member);
	for (long i = 0; i < len; i++)
		printf("%02x", out[i]);
	printf("\n");
	return 0;
}
