/* Fuzz the kexec fast path's parsers (src/kexec/kexecload_x86_64.c): the first byte
 * picks the input: 0 a bzImage (its setup header laid out into boot_params
 * and segments, with and without EFI state, with a small and a large RAM),
 * 1 /proc/iomem text. Inputs are capped at 1 MiB. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kexecload.h"

static void env_make(struct lb_kl_env *env, uint64_t ram_hi, int efi)
{
	memset(env, 0, sizeof(*env));
	env->e820[0] = (struct lb_kl_range){ 0, 0x9fc00, LB_E820_RAM };
	env->e820[1] = (struct lb_kl_range){ 0x100000, ram_hi, LB_E820_RAM };
	env->n_e820 = 2;
	env->ram[0] = (struct lb_kl_range){ 0x100000, ram_hi, LB_E820_RAM };
	env->n_ram = 1;
	env->have_bp = 1;
	env->have_rng = 1;
	if (efi) {
		env->efi = 1;
		env->n_efimd = 4;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lb_kl_env env;
	static const uint8_t initrd[100];
	struct lb_kl_plan p;
	char why[128];

	if (size < 1 || size > (1u << 20))
		return 0;
	if (data[0] == 0) {
		for (int i = 0; i < 4; i++) {
			env_make(&env, i & 1 ? (1ull << 30) : (24ull << 20), i & 2);
			if (!lb_kl_build(data + 1, size - 1, i & 1 ? initrd : NULL,
					 i & 1 ? sizeof(initrd) : 0, "console=ttyS0", &env,
					 &p, why, sizeof(why)))
				lb_kl_plan_free(&p);
		}
	} else if (data[0] == 1) {
		static struct lb_kl_range e[64], r[64];
		size_t ne, nr;
		char *t = malloc(size);

		if (!t)
			return 0;
		memcpy(t, data + 1, size - 1);
		t[size - 1] = 0;
		lb_kl_parse_iomem(t, e, &ne, r, &nr, 64);
		free(t);
	}
	return 0;
}
