/* Fuzz the minisign/signify key and signature parsers and the verifier. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_pubkey k, ks[2];
	struct lb_sig *s;
	int n = 0;

	if (size > (1u << 20))
		return 0;
	if (!lb_pubkey_parse(data, size, &k))
		ks[n++] = k;
	s = malloc(sizeof(*s));
	if (!s)
		return 0;
	if (!lb_sig_parse(data, size, s)) {
		if (s->trusted_len > LB_SIG_MAX_TRUSTED ||
		    strlen(s->trusted) != s->trusted_len)
			abort();
		/* a key with the signature's own id, so verify runs */
		memset(&ks[n], 0x42, sizeof(ks[n]));
		memcpy(ks[n].keyid, s->keyid, 8);
		n++;
		struct lb_keyring kr = { ks, (size_t)n, NULL, 0 };
		int rc = lb_sig_verify(s, &kr, data, size, NULL, NULL);
		if (rc > 0)
			abort();
		(void)lb_sig_reason(rc);
	}
	free(s);
	return 0;
}
