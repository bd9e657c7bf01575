package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TokenOrderTest {
    private static final long NOW = 1_795_000_000_000L;

    @Test
    void floorPutsTheMillisecondsInTheHighBits() {
        assertThat(TokenOrder.floor(NOW)).isEqualTo(NOW * 65_536);
        assertThat(TokenOrder.epochMillis(TokenOrder.floor(NOW) + 65_535)).isEqualTo(NOW);
        assertThat(TokenOrder.floor(TokenOrder.MAX_EPOCH_MILLIS)).isPositive();
    }

    @Test
    void nextIsTheClockWhenItIsAheadOfThePreviousToken() {
        assertThat(TokenOrder.next(TokenOrder.floor(NOW - 1) + 7, NOW)).isEqualTo(TokenOrder.floor(NOW));
        assertThat(TokenOrder.next(0, NOW)).isEqualTo(TokenOrder.floor(NOW));
    }

    @Test
    void nextStaysAboveThePreviousTokenWhateverTheClockSays() {
        long previous = TokenOrder.floor(NOW);
        assertThat(TokenOrder.next(previous, NOW)).isEqualTo(previous + 1);
        assertThat(TokenOrder.next(previous, NOW - 60_000)).isEqualTo(previous + 1);
        assertThat(TokenOrder.next(previous, 0)).isEqualTo(previous + 1);
    }

    @Test
    void aBackendSwitchMoreThanOneMillisecondLaterStartsAboveEveryEarlierToken() {
        long earlier = TokenOrder.floor(NOW);
        for (int i = 0; i < 65_535; i++) {
            earlier = TokenOrder.next(earlier, NOW);
        }
        assertThat(TokenOrder.next(0, NOW + 1)).isGreaterThan(earlier);
    }

    @Test
    void valuesOutsideTheOrderAreRefusedWithTheValue() {
        assertThatThrownBy(() -> TokenOrder.floor(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("epochMillis")
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> TokenOrder.floor(TokenOrder.MAX_EPOCH_MILLIS + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Long.toString(TokenOrder.MAX_EPOCH_MILLIS + 1));
        assertThatThrownBy(() -> TokenOrder.next(Long.MAX_VALUE, NOW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("previous token")
                .hasMessageContaining(Long.toString(Long.MAX_VALUE));
        assertThatThrownBy(() -> TokenOrder.next(-5, NOW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-5");
    }
}
