/* A 16550 UART by port I/O: the one output channel of firmware code that
 * has no console of its own (lbootdxe in DXE, lbootpei in PEI; the first is
 * an X64 image, the second IA32, so only plain C types here). Every wait is
 * bounded: a missing UART reads 0xFF (bit 5 set) and a wedged one must not
 * hang the boot. Port 0: no output. */
#ifndef LB_UART_H
#define LB_UART_H

static inline void lb_outb(unsigned short port, unsigned char v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline unsigned char lb_inb(unsigned short port)
{
	unsigned char v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* 115200 baud, 8N1, FIFO on, no interrupts */
static inline void lb_uart_init(unsigned short com)
{
	if (!com)
		return;
	lb_outb(com + 1, 0x00); /* no interrupts */
	lb_outb(com + 3, 0x80); /* DLAB */
	lb_outb(com + 0, 0x01); /* divisor 1: 115200 baud */
	lb_outb(com + 1, 0x00);
	lb_outb(com + 3, 0x03); /* 8N1 */
	lb_outb(com + 2, 0x07); /* FIFO on, cleared */
	lb_outb(com + 4, 0x03); /* DTR, RTS */
}

static inline void lb_uart_putc(unsigned short com, char c)
{
	if (!com)
		return;
	for (unsigned i = 0; i < 100000 && !(lb_inb(com + 5) & 0x20); i++)
		__asm__ volatile("pause");
	lb_outb(com, (unsigned char)c);
}

/* a string, "\n" as "\r\n" */
static inline void lb_uart_puts(unsigned short com, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			lb_uart_putc(com, '\r');
		lb_uart_putc(com, *s);
	}
}

#endif
