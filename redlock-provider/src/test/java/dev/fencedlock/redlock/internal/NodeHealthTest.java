package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class NodeHealthTest {
    private static final long S = 1_000_000_000L;
    private static final Quarantine QUARANTINE = configured(30);

    private final NodeHealth health = new NodeHealth(0, "redis://h:1/0");

    @Test
    void aNeverSeenNodeCountsOnlyOnceItsUptimeCoversTheQuarantine() {
        RedisInstance young = new RedisInstance("a", 100 * S - 10 * S, 100 * S);
        assertThat(health.exclusion(young, 101 * S, 101 * S, QUARANTINE))
                .as("up 11 s")
                .isNotNull()
                .hasMessageStartingWith("started (run_id a) 11000 ms before the attempt, judged by its uptime")
                .hasMessageContaining("another 19000 ms of restart quarantine");
        assertThat(health.exclusion(young, 120 * S, 120 * S, QUARANTINE))
                .as("up 30 s")
                .isNull();
    }

    @Test
    void aPromotedReplicaIsQuarantinedFromItsPromotionAndSaysSo() {
        RedisInstance promoted = new RedisInstance("b/replid", 100 * S, 100 * S, null, false, true);
        assertThat(health.exclusion(promoted, 105 * S, 105 * S, QUARANTINE))
                .hasMessageStartingWith("was promoted from a replica (run_id b/replid) 5000 ms before the attempt")
                .hasMessageContaining("another 25000 ms of restart quarantine");
        assertThat(new NodeHealth(0, "sentinel").exclusion(promoted.promotedBy(60 * S), 105 * S, 105 * S, QUARANTINE))
                .as("dated 45 s ago by a Sentinel")
                .isNull();
    }

    @Test
    void anOldNodeCountsAtOnce() {
        RedisInstance old = new RedisInstance("a", 0, 100 * S);
        assertThat(health.exclusion(old, 100 * S, 100 * S, QUARANTINE)).isNull();
    }

    @Test
    void theQuarantineIsJudgedAtTheStartOfTheAttempt() {
        RedisInstance instance = new RedisInstance("a", 0, 10 * S);
        assertThat(health.exclusion(instance, 29 * S, 31 * S, QUARANTINE))
                .as("up 29 s when the attempt began, 31 s when it answered")
                .isNotNull();
    }

    @Test
    void aRestartSeenByThisClientCountsFromTheLastAnswerOfThePreviousIncarnation() {
        RedisInstance before = new RedisInstance("a", 0, 10 * S);
        assertThat(health.exclusion(before, 100 * S, 100 * S, QUARANTINE)).isNull();
        // the new incarnation claims a long uptime (its clock jumped), but "a" answered at 100 s
        RedisInstance after = new RedisInstance("b", 50 * S, 110 * S);
        assertThat(health.exclusion(after, 110 * S, 110 * S, QUARANTINE))
                .isNotNull()
                .hasMessageStartingWith("restarted (run_id b) 10000 ms before the attempt;");
        assertThat(health.exclusion(after, 129 * S, 129 * S, QUARANTINE)).isNotNull();
        assertThat(health.exclusion(after, 130 * S, 130 * S, QUARANTINE)).isNull();
    }

    @Test
    void aReplyOnAConnectionToAnEarlierIncarnationNeverCounts() {
        RedisInstance earlier = new RedisInstance("a", 0, 10 * S);
        RedisInstance later = new RedisInstance("b", 0, 20 * S);
        assertThat(health.exclusion(later, 100 * S, 100 * S, QUARANTINE)).isNull();
        assertThat(health.exclusion(earlier, 101 * S, 101 * S, QUARANTINE))
                .isNotNull()
                .hasMessageContaining("earlier incarnation");
        assertThat(health.exclusion(later, 102 * S, 102 * S, QUARANTINE)).isNull();
    }

    @Test
    void aLongerQuarantineAppliesToTheSameIncarnationAtOnce() {
        RedisInstance instance = new RedisInstance("a", 0, 10 * S);
        assertThat(health.exclusion(instance, 40 * S, 40 * S, QUARANTINE)).isNull();
        assertThat(health.exclusion(instance, 41 * S, 41 * S, configured(60))).isNotNull();
    }

    @Test
    void offCountsANodeThatStartedDuringTheAttempt() {
        RedisInstance instance = new RedisInstance("a", 10 * S, 10 * S);
        assertThat(health.exclusion(instance, 9 * S, 10 * S, configured(0))).isNull();
    }

    private static Quarantine configured(long seconds) {
        return new Quarantine(Duration.ofSeconds(seconds), Duration.ofSeconds(1), false, false, 1);
    }

    @Test
    void aNodeThatMayEvictKeysNeverCounts() {
        RedisInstance evicting = new RedisInstance("a", 0, 100 * S, "volatile-lru with maxmemory 1024");
        assertThat(health.exclusion(evicting, 100 * S, 100 * S, QUARANTINE))
                .isInstanceOf(EvictingNodeException.class)
                .hasMessageContaining("volatile-lru")
                .hasMessageContaining("noeviction");
    }
}
