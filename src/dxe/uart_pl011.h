/* An ARM PL011 UART by MMIO: lbootdxe's output on arm64 (QEMU virt: UART0
 * at 0x09000000; uart.h is the 16550 of x86). The firmware has set the
 * baud rate and enabled the UART (AAVMF prints through it); we only wait
 * for room in the transmit FIFO, bounded (a missing or wedged UART must
 * not hang the boot), and write the data register. Base 0: no output.
 * Plain C types only (freestanding). */
#ifndef LB_UART_PL011_H
#define LB_UART_PL011_H

#define LB_PL011_DR   0x00 /* data */
#define LB_PL011_FR   0x18 /* flags */
#define LB_PL011_FR_TXFF 0x20 /* transmit FIFO full */

static inline void lb_pl011_init(unsigned long long base)
{
	(void)base; /* set up by the firmware before DXE */
}

static inline void lb_pl011_putc(unsigned long long base, char c)
{
	volatile unsigned int *fr, *dr;

	if (!base)
		return;
	fr = (volatile unsigned int *)(base + LB_PL011_FR);
	dr = (volatile unsigned int *)(base + LB_PL011_DR);
	for (unsigned i = 0; i < 100000 && (*fr & LB_PL011_FR_TXFF); i++)
		__asm__ volatile("yield");
	*dr = (unsigned char)c;
}

/* a string, "\n" as "\r\n" */
static inline void lb_pl011_puts(unsigned long long base, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			lb_pl011_putc(base, '\r');
		lb_pl011_putc(base, *s);
	}
}

#endif
