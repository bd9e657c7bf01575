package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The script arguments and counters written and read without strings: byte for byte what {@code
 * Long.toString} writes and what {@code Long.parseLong} reads (a counter read differently would
 * change a vote).
 */
class DecimalTest {

    @Test
    void writesWhatLongToStringWrites() {
        long[] edges = {0, 1, 9, 10, 99, 100, 65_535, 65_536, Long.MAX_VALUE, Long.MAX_VALUE - 1, -1, Long.MIN_VALUE};
        for (long value : edges) {
            assertThat(new String(Decimal.encode(value), StandardCharsets.US_ASCII))
                    .isEqualTo(Long.toString(value));
        }
        for (int i = 0; i < 10_000; i++) {
            long value = ThreadLocalRandom.current().nextLong()
                    >>> ThreadLocalRandom.current().nextInt(64);
            assertThat(new String(Decimal.encode(value), StandardCharsets.US_ASCII))
                    .isEqualTo(Long.toString(value));
        }
    }

    @Test
    void readsWhatLongParseLongReads() {
        String[] texts = {"0", "7", "0042", "999999999999999999", "9223372036854775807", "-5", "+5"};
        for (String text : texts) {
            assertThat(Decimal.parse(text.getBytes(StandardCharsets.US_ASCII))).isEqualTo(Long.parseLong(text));
        }
        for (int i = 0; i < 10_000; i++) {
            long value = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
            assertThat(Decimal.parse(Long.toString(value).getBytes(StandardCharsets.US_ASCII)))
                    .isEqualTo(value);
        }
    }

    @Test
    void refusesWhatLongParseLongRefuses() {
        String[] texts = {"", "1x", " 1", "1.5", "9223372036854775808", "99999999999999999999", "-"};
        for (String text : texts) {
            assertThatThrownBy(() -> Decimal.parse(text.getBytes(StandardCharsets.US_ASCII)))
                    .as(text)
                    .isInstanceOf(NumberFormatException.class);
        }
    }
}
