package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuarantineTest {
    private static final long S = 1_000_000_000L;
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration CONFIGURED = Duration.ofSeconds(30);
    private static final long TEN_MINUTES_MS = 600_000;
    private static final RedisInstance PLAIN = new RedisInstance("a", 0, 0);

    @Test
    void aConfiguredQuarantineRejectsLongerLeasesAndExtensionsNamingTheKeyAndBothValues() {
        Quarantine quarantine = new Quarantine(CONFIGURED, LEASE, true, false, 1);
        assertThatThrownBy(() -> quarantine.noteLease(Duration.ofMinutes(5), "fixed lease of lock 'a'"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE)
                .hasMessageContaining("fixed lease of lock 'a' of 5m")
                .hasMessageContaining("30s");
        assertThatThrownBy(() -> quarantine.noteLease(Duration.ofMinutes(10), "extension of lock 'a'"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("extension of lock 'a' of 10m")
                .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE + " 30s");
        assertThat(after(quarantine, 0, "a", 0, 0)).isEqualTo(CONFIGURED.toNanos());
        assertThat(quarantine.outstandingNanos(0)).isEqualTo(CONFIGURED.toNanos());
    }

    @Test
    void aConfiguredQuarantineAcceptsLeasesUpToItselfAndIgnoresTheNodesRecords() {
        Quarantine quarantine = new Quarantine(CONFIGURED, LEASE, true, false, 1);
        quarantine.noteLease(CONFIGURED, "fixed lease of lock 'a'");
        quarantine.noteLease(Duration.ofSeconds(1), "extension of lock 'a'");
        quarantine.hear(0, "a", 1_000, 100 * S, TEN_MINUTES_MS, TEN_MINUTES_MS);
        assertThat(after(quarantine, 0, "b", 101 * S, 101 * S)).isEqualTo(CONFIGURED.toNanos());
    }

    @Test
    void aClientLeaseTimeLongerThanTheConfiguredQuarantineIsRejectedNamingBothKeys() {
        assertThatThrownBy(() -> new Quarantine(CONFIGURED, Duration.ofMinutes(1), true, false, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(LockConfig.LEASE_TIME + " 1m")
                .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE + " 30s");
    }

    @Test
    void zeroTurnsTheQuarantineOffAndLimitsNoLease() {
        Quarantine quarantine = new Quarantine(Duration.ZERO, LEASE, true, false, 1);
        quarantine.noteLease(Duration.ofHours(1), "fixed lease of lock 'a'");
        assertThat(quarantine.none(PLAIN)).isTrue();
        assertThat(new Quarantine(null, LEASE, true, false, 1).none(PLAIN)).isFalse();
    }

    @Test
    void withNothingLiveTheQuarantineIsTheLeaseTime() {
        Quarantine quarantine = new Quarantine(null, LEASE, true, false, 3);
        assertThat(after(quarantine, 0, "b", 100 * S, 100 * S)).isEqualTo(LEASE.toNanos());
        quarantine.hear(1, "y", 1, 100 * S, 0, 0);
        assertThat(after(quarantine, 0, "b", 100 * S, 100 * S)).isEqualTo(LEASE.toNanos());
        assertThat(quarantine.outstandingNanos(100 * S)).isEqualTo(LEASE.toNanos());
    }

    /** One node: a ten-minute lease keeps its restart out only while it is live. */
    @Test
    void aLiveLongLeaseKeepsARestartedNodeOutUntilItEndsAndNoLonger() {
        Quarantine quarantine = new Quarantine(null, LEASE, true, false, 1);
        // incarnation "a" reported at 100 s: a ten-minute lease is live and ends at 100 s + 9 min
        quarantine.hear(0, "a", 1_000, 100 * S, 540_000, TEN_MINUTES_MS);
        assertThat(after(quarantine, 0, "a", 0, 100 * S))
                .as("what a node holds itself does not quarantine it")
                .isEqualTo(LEASE.toNanos());
        long restart = 160 * S;
        assertThat(after(quarantine, 0, "b", restart, restart))
                .as("incarnation b forgot it: out until the lease ends, 8 min after the restart")
                .isEqualTo(640 * S - restart);
        assertThat(quarantine.outstandingNanos(restart)).isEqualTo(480 * S);
        // b reports nothing live: a's lease is kept until it ends
        quarantine.hear(0, "b", 1, restart + S, 0, 0);
        assertThat(after(quarantine, 0, "b", restart, restart + S)).isEqualTo(640 * S - restart);
        assertThat(after(quarantine, 0, "b", restart, 641 * S))
                .as("once the lease has ended, the lease time")
                .isEqualTo(LEASE.toNanos());
    }

    @Test
    void aLongLeaseReleasedBeforeTheLastReadingQuarantinesNothing() {
        Quarantine quarantine = new Quarantine(null, LEASE, true, false, 1);
        quarantine.hear(0, "a", 1_000, 100 * S, 540_000, TEN_MINUTES_MS);
        quarantine.hear(0, "a", 3_000, 102 * S, 0, 0); // the release's reply
        assertThat(after(quarantine, 0, "b", 160 * S, 160 * S)).isEqualTo(LEASE.toNanos());
        assertThat(quarantine.outstandingNanos(160 * S)).isEqualTo(LEASE.toNanos());
    }

    @Test
    void anotherNodesLiveLeasesCountOnlyUpToTheLongestLeaseTimeAfterTheRestart() {
        Quarantine quarantine = new Quarantine(null, LEASE, true, false, 3);
        long restart = 100 * S;
        // node 1 reports a steady traffic of 20 s leases: the latest always ends 20 s from now
        for (long now = restart; now < restart + 60 * S; now += S) {
            quarantine.hear(1, "y", now / 1_000_000, now, 20_000, 20_000);
            assertThat(after(quarantine, 0, "b", restart, now)).isEqualTo(20 * S);
        }
    }

    @Test
    void thisClientsOwnGrantsCountUntilALaterReadingReplacesThem() {
        Quarantine quarantine = new Quarantine(null, LEASE, true, false, 1);
        quarantine.hear(0, "a", 1_000, 100 * S, 0, 0);
        quarantine.wrote(0, 100 * S, TEN_MINUTES_MS * 1_000_000L);
        assertThat(after(quarantine, 0, "b", 130 * S, 130 * S)).isEqualTo(700 * S - 130 * S);
        quarantine.hear(0, "a", 1_000, 131 * S, 0, 0);
        assertThat(after(quarantine, 0, "b", 130 * S, 131 * S))
                .as("a report the node made in the same microsecond as the grant may predate it")
                .isEqualTo(700 * S - 130 * S);
        quarantine.hear(0, "a", 31_000, 131 * S, 0, 0);
        assertThat(after(quarantine, 0, "b", 130 * S, 131 * S)).isEqualTo(LEASE.toNanos());
    }

    @Test
    void aReportTheNodeMadeEarlierDoesNotReplaceALaterOne() {
        Quarantine quarantine = new Quarantine(null, LEASE, true, false, 1);
        quarantine.hear(0, "a", 2_000, 100 * S, 60_000, 60_000);
        quarantine.hear(0, "a", 1_000, 101 * S, 0, 0);
        assertThat(quarantine.outstandingNanos(100 * S)).isEqualTo(60 * S);
    }

    private static long after(Quarantine quarantine, int node, String runId, long startedAt, long now) {
        return quarantine.nanosAfterStart(node, new RedisInstance(runId, startedAt, now), startedAt, now);
    }

    @Test
    void aNodeThatPersistsEveryWriteNeedsNoneWhenTrusted() {
        RedisInstance persistent = new RedisInstance("a", 0, 0, null, true);
        assertThat(new Quarantine(null, LEASE, true, true, 1).none(persistent)).isTrue();
        assertThat(new Quarantine(null, LEASE, true, false, 1).none(persistent)).isFalse();
        assertThat(new Quarantine(null, LEASE, true, true, 1).none(PLAIN)).isFalse();
    }
}
