package dev.fencedlock.internal.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.TokenOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code local} backend follows the one token order ({@link TokenOrder}): a token granted at
 * wall-clock {@code t} ms is at least {@code t << 16}, and tokens of a name only grow, across
 * clients of one JVM and whatever the wall clock does.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LocalTokenOrderTest {
    private static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Test
    void tokensOfTwoClientsOfOneJvmAreAtLeastTheClockFloorAndStrictlyIncreasing() throws InterruptedException {
        String name = "local-token-order-" + System.nanoTime();
        LockConfig config = LockConfig.builder().backend("local").build();
        List<Long> tokens = new ArrayList<>();
        try (LockClient first = LockClient.create(config);
                LockClient second = LockClient.create(config)) {
            for (int i = 0; i < 10; i++) {
                LockClient client = i % 2 == 0 ? first : second;
                long before = System.currentTimeMillis();
                try (Lease lease = client.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
                    assertThat(lease.token())
                            .as("grant %d: at least the floor of the clock read before it", i)
                            .isGreaterThanOrEqualTo(TokenOrder.floor(before));
                    assertThat(TokenOrder.epochMillis(lease.token()))
                            .as("grant %d: carries no clock reading after it", i)
                            .isLessThanOrEqualTo(System.currentTimeMillis());
                    tokens.add(lease.token());
                }
            }
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aClockThatStandsStillOrGoesBackwardsStillGivesIncreasingTokens() throws InterruptedException {
        long start = 1_700_000_000_000L;
        AtomicLong clock = new AtomicLong(start);
        LocalLockTable table = new LocalLockTable(clock::get);
        long first = grantAndRelease(table, "a");
        assertThat(first).isEqualTo(start << 16);
        long sameMillisecond = grantAndRelease(table, "a");
        assertThat(sameMillisecond).isEqualTo(first + 1);
        clock.set(start - 60_000); // stepped back a minute
        long afterStepBack = grantAndRelease(table, "a");
        assertThat(afterStepBack).isEqualTo(sameMillisecond + 1);
        long otherName = grantAndRelease(table, "b");
        assertThat(otherName).as("one counter for every name").isEqualTo(afterStepBack + 1);
        clock.set(-5); // nonsense reading: counts as 0, tokens still grow
        assertThat(grantAndRelease(table, "a")).isEqualTo(otherName + 1);
        clock.set(start + 1);
        assertThat(grantAndRelease(table, "a")).as("the clock floor again").isEqualTo((start + 1) << 16);
    }

    @Test
    void skippedTokensStayBelowTheNextGrantAndAnOverflowingSkipIsRefused() throws InterruptedException {
        AtomicLong clock = new AtomicLong(1_700_000_000_000L);
        LocalLockTable table = new LocalLockTable(clock::get);
        long granted = grantAndRelease(table, "a");
        long skipped = table.skipTokens(1_000_000);
        assertThat(skipped).isEqualTo(granted + 1_000_000);
        assertThat(grantAndRelease(table, "a")).isEqualTo(skipped + 1);
        assertThatThrownBy(() -> table.skipTokens(Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count must leave tokens below Long.MAX_VALUE, got " + Long.MAX_VALUE);
    }

    private static long grantAndRelease(LocalLockTable table, String name) throws InterruptedException {
        long now = System.nanoTime();
        LocalLockTable.Grant grant = table.acquire(name, LEASE_NANOS, now, System::nanoTime);
        assertThat(grant).as("%s is free", name).isNotNull();
        table.release(name, grant.holder());
        return grant.token();
    }
}
