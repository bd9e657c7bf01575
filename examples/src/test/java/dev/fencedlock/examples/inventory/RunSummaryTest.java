package dev.fencedlock.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary's invariant checks catch each kind of broken run (pure logic, no servers). */
class RunSummaryTest {

    private static WorkerTally tally(long sold, long stale) {
        WorkerTally tally = new WorkerTally();
        tally.add(Map.of(OrderOutcome.SOLD, sold, OrderOutcome.REFUSED_BY_DATABASE, stale));
        return tally;
    }

    private static RunSummary summary(InventoryDatabase.Snapshot snapshot, WorkerTally tally, boolean stalled) {
        return new RunSummary("test", 100, snapshot, tally, stalled, false, Duration.ofSeconds(1));
    }

    @Test
    void aCorrectRunPasses() {
        RunSummary summary = summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), tally(100, 1), true);
        assertThat(summary.passed()).isTrue();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("RESULT: all invariants hold");
    }

    @Test
    void oversellFails() {
        assertThat(summary(new InventoryDatabase.Snapshot(-1, -1, 101, 0), tally(101, 1), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aLostUpdateFails() {
        // two workers committed a sale of the same unit: 100 orders but only 99 units gone
        assertThat(summary(new InventoryDatabase.Snapshot(1, 0, 100, 0), tally(100, 1), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aCommittedSaleWithoutItsOrderFails() {
        assertThat(summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), tally(101, 1), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aWriteUnderABrokenLockThatTheDatabaseAcceptedFails() {
        InventoryDatabase.Snapshot sane = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        assertThat(new RunSummary("test", 100, sane, tally(100, 0), false, true, Duration.ofSeconds(1)).passed())
                .as("a break that nobody overtook shows nothing: the run must say it failed to show it")
                .isFalse();
        WorkerTally overtakenButAccepted = tally(100, 0);
        overtakenButAccepted.noteBrokenLockOvertaken();
        InventoryDatabase.Snapshot consistent = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        assertThat(new RunSummary("test", 100, consistent, overtakenButAccepted, false, true, Duration.ofSeconds(1))
                        .passed())
                .isFalse();
        WorkerTally overtakenAndRefused = tally(100, 1);
        overtakenAndRefused.noteBrokenLockOvertaken();
        assertThat(new RunSummary("test", 100, consistent, overtakenAndRefused, false, true, Duration.ofSeconds(1))
                        .passed())
                .isTrue();
    }

    @Test
    void aStallWhoseLateWriteWasNotRefusedFails() {
        assertThat(summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), tally(100, 0), true)
                        .passed())
                .isFalse();
        assertThat(summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), tally(100, 0), false)
                        .passed())
                .isTrue();
    }
}
