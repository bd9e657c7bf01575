package dev.fencedlock.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary's invariant checks catch each kind of broken run (pure logic, no servers). */
class RunSummaryTest {

    private static WorkerTally tally(long sold, long stale) {
        WorkerTally tally = new WorkerTally();
        tally.add(Map.of(OrderOutcome.SOLD, sold, OrderOutcome.REFUSED_BY_DATABASE, stale));
        return tally;
    }

    /** Every committed order shipped once, nothing else shipped. */
    private static ShippingSnapshot shipped(long orders) {
        return new ShippingSnapshot(orders, 0, 0, List.of());
    }

    /** A tally whose stalled worker's late call was refused by the shipping service. */
    private static WorkerTally withLateCallRefused(WorkerTally tally) {
        tally.noteLateCall(true);
        return tally;
    }

    private static RunSummary summary(InventoryDatabase.Snapshot snapshot, WorkerTally tally, boolean stalled) {
        return summary(snapshot, shipped(snapshot.orders()), tally, stalled);
    }

    private static RunSummary summary(
            InventoryDatabase.Snapshot snapshot, ShippingSnapshot shipping, WorkerTally tally, boolean stalled) {
        return new RunSummary("test", 100, snapshot, shipping, tally, stalled, false, Duration.ofSeconds(1));
    }

    @Test
    void aCorrectRunPasses() {
        RunSummary summary =
                summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), withLateCallRefused(tally(100, 1)), true);
        assertThat(summary.passed()).isTrue();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("RESULT: all invariants hold");
    }

    @Test
    void oversellFails() {
        assertThat(summary(new InventoryDatabase.Snapshot(-1, -1, 101, 0), withLateCallRefused(tally(101, 1)), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aLostUpdateFails() {
        // two workers committed a sale of the same unit: 100 orders but only 99 units gone
        assertThat(summary(new InventoryDatabase.Snapshot(1, 0, 100, 0), withLateCallRefused(tally(100, 1)), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aCommittedSaleWithoutItsOrderFails() {
        assertThat(summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), withLateCallRefused(tally(101, 1)), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aWriteUnderABrokenLockThatTheDatabaseAcceptedFails() {
        InventoryDatabase.Snapshot sane = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        assertThat(new RunSummary("test", 100, sane, shipped(100), tally(100, 0), false, true, Duration.ofSeconds(1))
                        .passed())
                .as("a break that nobody overtook shows nothing: the run must say it failed to show it")
                .isFalse();
        WorkerTally overtakenButAccepted = tally(100, 0);
        overtakenButAccepted.noteBrokenLockOvertaken();
        InventoryDatabase.Snapshot consistent = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        assertThat(new RunSummary(
                                "test",
                                100,
                                consistent,
                                shipped(100),
                                overtakenButAccepted,
                                false,
                                true,
                                Duration.ofSeconds(1))
                        .passed())
                .isFalse();
        WorkerTally overtakenAndRefused = tally(100, 1);
        overtakenAndRefused.noteBrokenLockOvertaken();
        assertThat(new RunSummary(
                                "test",
                                100,
                                consistent,
                                shipped(100),
                                overtakenAndRefused,
                                false,
                                true,
                                Duration.ofSeconds(1))
                        .passed())
                .isTrue();
    }

    @Test
    void aStallWhoseLateWriteWasNotRefusedFails() {
        assertThat(summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), withLateCallRefused(tally(100, 0)), true)
                        .passed())
                .isFalse();
        assertThat(summary(new InventoryDatabase.Snapshot(0, 0, 100, 0), tally(100, 0), false)
                        .passed())
                .isTrue();
    }

    @Test
    void aStaleShipmentFails() {
        InventoryDatabase.Snapshot sane = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        // the stalled worker's call accepted: one shipment more, for an order that never committed
        assertThat(summary(sane, new ShippingSnapshot(101, 1, 0, List.of()), withLateCallRefused(tally(100, 1)), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aSoldUnitNotShippedFails() {
        InventoryDatabase.Snapshot sane = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        assertThat(summary(sane, new ShippingSnapshot(99, 0, 1, List.of()), withLateCallRefused(tally(100, 1)), true)
                        .passed())
                .isFalse();
    }

    @Test
    void aLateCallThatTheShippingServiceAcceptedFails() {
        InventoryDatabase.Snapshot sane = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        WorkerTally accepted = tally(100, 1);
        accepted.noteLateCall(false);
        assertThat(summary(sane, accepted, true).passed()).isFalse();
        assertThat(summary(sane, tally(100, 1), true).passed())
                .as("a stall whose late call was never made shows nothing: the run must say it failed to show it")
                .isFalse();
    }

    @Test
    void theSummaryShowsTheShippingServicesRefusals() {
        InventoryDatabase.Snapshot sane = new InventoryDatabase.Snapshot(0, 0, 100, 0);
        WorkerTally tally = withLateCallRefused(tally(100, 1));
        tally.count(ShippingOutcome.REFUSED_BY_RECEIVER);
        RunSummary summary =
                summary(sane, new ShippingSnapshot(100, 0, 0, List.of("inventory:sku-1 7 9")), tally, true);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains(
                        "stale calls refused  1 (lease no longer valid, not sent: 0, by the shipping service's fence: 1)")
                .contains("409 from shipping: lock 'inventory:sku-1', token 7 presented, newer token 9 registered")
                .contains("RESULT: all invariants hold");
    }
}
