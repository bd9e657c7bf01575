package dev.fencedlock.redlock.internal;

import java.nio.charset.StandardCharsets;

/**
 * Numbers as the scripts take and return them: decimal ASCII, written and read without making a
 * string, byte for byte what {@link Long#toString(long)} writes and {@link Long#parseLong(String)}
 * reads (a counter read differently would change a vote).
 */
final class Decimal {
    private Decimal() {}

    /** {@code value} in decimal as ASCII bytes, as {@code Long.toString(value)} spells it. */
    static byte[] encode(long value) {
        if (value < 0) {
            return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
        }
        int digits = 1;
        for (long rest = value / 10; rest > 0; rest /= 10) {
            digits++;
        }
        byte[] text = new byte[digits];
        long rest = value;
        for (int i = digits - 1; i >= 0; i--) {
            text[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return text;
    }

    /**
     * The decimal number in {@code text}, as {@code Long.parseLong} reads it (and with its {@link
     * NumberFormatException} for anything else): plain digits, the scripts' form, are read without
     * making a string.
     */
    static long parse(byte[] text) {
        if (text.length == 0 || text.length > 18) {
            return Long.parseLong(new String(text, StandardCharsets.US_ASCII));
        }
        long value = 0;
        for (byte digit : text) {
            if (digit < '0' || digit > '9') {
                return Long.parseLong(new String(text, StandardCharsets.US_ASCII));
            }
            value = value * 10 + (digit - '0');
        }
        return value;
    }
}
