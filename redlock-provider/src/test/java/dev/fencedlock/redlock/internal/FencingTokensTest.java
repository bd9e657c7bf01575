package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FencingTokensTest {

    @Test
    void proposalsCarryWallClockMillisecondsInTheHighBits() {
        FencingTokens tokens = new FencingTokens(() -> 1_700_000_000_000L);
        assertThat(tokens.propose()).isEqualTo(1_700_000_000_000L << FencingTokens.SEQUENCE_BITS);
    }

    @Test
    void proposalsGrowWithinOneMillisecondAndWhenTheClockGoesBack() {
        AtomicLong millis = new AtomicLong(1_000);
        FencingTokens tokens = new FencingTokens(millis::get);
        long first = tokens.propose();
        long second = tokens.propose();
        millis.set(10);
        long third = tokens.propose();
        assertThat(second).isEqualTo(first + 1);
        assertThat(third).isEqualTo(second + 1);
        millis.set(2_000);
        assertThat(tokens.propose()).isEqualTo(2_000L << FencingTokens.SEQUENCE_BITS);
    }

    @Test
    void proposalsStartAboveEveryTokenSeen() {
        FencingTokens tokens = new FencingTokens(() -> 1);
        tokens.observe(5_000_000);
        tokens.observe(7);
        assertThat(tokens.propose()).isEqualTo(5_000_001);
    }

    @Test
    void fallbackExceedsBothTheProposalAndEveryCounter() {
        assertThat(FencingTokens.fallback(100, 250)).isEqualTo(251);
        assertThat(FencingTokens.fallback(300, 250)).isEqualTo(301);
        assertThat(FencingTokens.fallback(300, 300)).isEqualTo(301);
    }

    @Test
    void aNegativeClockReadingStillGivesNonNegativeTokens() {
        FencingTokens tokens = new FencingTokens(() -> -5);
        assertThat(tokens.propose()).isEqualTo(1);
    }
}
