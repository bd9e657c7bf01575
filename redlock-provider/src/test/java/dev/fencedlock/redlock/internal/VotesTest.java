package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VotesTest {

    @ParameterizedTest
    @CsvSource({"1,1", "2,2", "3,2", "4,3", "5,3", "6,4", "7,4", "9,5"})
    void quorumIsAStrictMajority(int nodes, int quorum) {
        assertThat(Votes.quorum(nodes)).isEqualTo(quorum);
        assertThat(2 * Votes.quorum(nodes))
                .as("two quorums always share a node")
                .isGreaterThan(nodes);
    }

    @Test
    void everySplitOfFiveNodesIsJudgedByCountingGrantsOnly() {
        for (int granted = 0; granted <= 5; granted++) {
            for (int taken = 0; taken <= 5 - granted; taken++) {
                int failed = 5 - granted - taken;
                Votes votes = new Votes(5);
                for (int i = 0; i < granted; i++) {
                    votes.granted(true, 1);
                }
                for (int i = 0; i < taken; i++) {
                    votes.taken();
                }
                for (int i = 0; i < failed; i++) {
                    votes.failed("node" + i, new IllegalStateException("down"));
                }
                assertThat(votes.hasQuorum()).as("%d granted", granted).isEqualTo(granted >= 3);
                assertThat(votes.unavailable())
                        .as("%d granted, %d taken, %d failed", granted, taken, failed)
                        .isEqualTo(granted + taken < 3);
            }
        }
    }

    @Test
    void theTokenCountsOnlyWhenAQuorumTookIt() {
        Votes votes = new Votes(5);
        votes.granted(true, 70);
        votes.granted(true, 70);
        votes.granted(false, 90);
        assertThat(votes.hasQuorum()).isTrue();
        assertThat(votes.tokenAccepted()).isFalse();
        assertThat(votes.highestCounter()).isEqualTo(90);
    }

    @Test
    void theDescriptionAndTheExceptionNameTheCountsAndEachFailedNode() {
        Votes votes = new Votes(5);
        votes.granted(true, 1);
        votes.taken();
        votes.failed("redis://a:****@h1:1/0", new IllegalStateException("timed out"));
        votes.excluded("redis://h2:2/0", new NodeQuarantinedException("restarted"));
        votes.failed("redis://h3:3/0", new IllegalStateException("refused"));
        assertThat(votes.describe())
                .startsWith("1 of 5 nodes granted, 3 needed; 1 held by another client; 1 in restart quarantine; "
                        + "3 did not count: ")
                .contains("redis://a:****@h1:1/0: IllegalStateException (timed out)")
                .contains("NodeQuarantinedException (restarted)");
        LockUnavailableException unavailable = votes.unavailableException("orders", Duration.ofMillis(12));
        assertThat(unavailable.nodeFailures()).hasSize(3);
        assertThat(unavailable).hasMessageContaining("orders").hasMessageContaining("12 ms");
        assertThat(unavailable).hasMessageContaining("3 of 5 nodes answered, 2 counted, 3 needed");
    }

    @Test
    void nodesInRestartQuarantineCountAsAnsweredButNotCounted() {
        Votes votes = new Votes(5);
        for (int node = 1; node <= 5; node++) {
            votes.excluded("redis://h" + node + ":1/0", new NodeQuarantinedException("restarted"));
        }
        assertThat(votes.unavailable()).isTrue();
        assertThat(votes.describe()).startsWith("0 of 5 nodes granted, 3 needed; 5 in restart quarantine; ");
        LockUnavailableException unavailable = votes.unavailableException("orders", Duration.ofMillis(12));
        assertThat(unavailable.nodeFailures()).hasSize(5);
        assertThat(unavailable).hasMessageContaining("5 of 5 nodes answered, 0 counted, 3 needed [");
    }

    @Test
    void nodesThatGaveNoAnswerAreNotCountedAsAnswered() {
        Votes votes = new Votes(3);
        votes.granted(true, 1);
        votes.failed("redis://h2:1/0", new IllegalStateException("timed out"));
        votes.failed("redis://h3:1/0", new IllegalStateException("timed out"));
        assertThat(votes.unavailableException("orders", Duration.ofMillis(1)))
                .hasMessageContaining("1 of 3 nodes answered, 2 needed [");
    }
}
