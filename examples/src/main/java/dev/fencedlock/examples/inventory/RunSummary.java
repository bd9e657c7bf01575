package dev.fencedlock.examples.inventory;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end-of-run report: the figures, and the invariants that prove the run was correct. The
 * databases are the judges: what the workers believe they sold is checked against what the
 * inventory database holds, and what they shipped against what the shipping service's own database
 * holds.
 */
final class RunSummary {
    /** One invariant, with the figures it compared. */
    record Check(String name, String evidence, boolean holds) {}

    /** The most refusals of the shipping service the summary lists one by one. */
    private static final int SHOWN_REFUSALS = 5;

    private final long initial;
    private final InventoryDatabase.Snapshot database;
    private final ShippingSnapshot shipping;
    private final WorkerTally tally;
    private final Duration elapsed;
    private final String backend;
    private final List<Check> checks = new ArrayList<>();

    RunSummary(
            String backend,
            long initial,
            InventoryDatabase.Snapshot database,
            ShippingSnapshot shipping,
            WorkerTally tally,
            boolean stallInjected,
            boolean lockBreakInjected,
            Duration elapsed) {
        this.backend = backend;
        this.initial = initial;
        this.database = database;
        this.shipping = shipping;
        this.tally = tally;
        this.elapsed = elapsed;
        long sold = database.orders();
        long committed = tally.get(OrderOutcome.SOLD);
        checks.add(new Check(
                "no unit oversold", "lowest stock " + database.lowestQuantity(), database.lowestQuantity() >= 0));
        checks.add(new Check(
                "sold + remaining = initial",
                sold + " + " + database.remaining() + " = " + (sold + database.remaining()) + " (initial " + initial
                        + ")",
                sold + database.remaining() == initial));
        checks.add(new Check(
                "orders recorded = units sold by workers",
                sold + " recorded, " + committed + " committed",
                sold == committed));
        checks.add(new Check(
                "every order belongs to a stocked SKU",
                database.ordersForUnknownSkus() + " stray orders",
                database.ordersForUnknownSkus() == 0));
        checks.add(new Check(
                "shipments = units sold",
                shipping.shipments() + " shipments in the shipping database, " + sold + " orders, "
                        + shipping.ordersNotShipped() + " orders not shipped",
                shipping.shipments() == sold && shipping.ordersNotShipped() == 0));
        checks.add(new Check(
                "every shipment belongs to a committed order (no stale shipment)",
                shipping.withoutCommittedOrder() + " shipments without a committed order",
                shipping.withoutCommittedOrder() == 0));
        if (stallInjected) {
            checks.add(new Check(
                    "stalled worker's late write refused",
                    tally.staleRefused() + " stale writes refused",
                    tally.staleRefused() >= 1));
            checks.add(new Check(
                    "stalled worker's late call refused by the shipping service",
                    tally.lateCallsRefused() + " of " + tally.lateCalls()
                            + " late call(s) refused with 409 by the service's fence row",
                    tally.lateCalls() >= 1 && tally.lateCallsRefused() == tally.lateCalls()));
        }
        if (lockBreakInjected) {
            long overtaken = tally.brokenLocksOvertaken();
            long byDatabase = tally.get(OrderOutcome.REFUSED_BY_DATABASE);
            checks.add(new Check(
                    "write under a broken lock refused by the database",
                    overtaken + " lock(s) broken and overtaken by a newer holder's sale; " + byDatabase
                            + " write(s) refused by the database's fence condition",
                    overtaken >= 1 && byDatabase >= overtaken));
        }
    }

    boolean passed() {
        return checks.stream().allMatch(Check::holds);
    }

    List<Check> checks() {
        return List.copyOf(checks);
    }

    long sold() {
        return database.orders();
    }

    long staleRefused() {
        return tally.staleRefused();
    }

    void print(PrintStream out) {
        double seconds = Math.max(1e-9, elapsed.toNanos() / 1e9);
        out.println();
        out.println("== inventory run summary (" + backend + ") ==");
        out.printf(Locale.ROOT, "initial stock        %d%n", initial);
        out.printf(Locale.ROOT, "sold                 %d%n", database.orders());
        out.printf(Locale.ROOT, "remaining            %d%n", database.remaining());
        out.printf(
                Locale.ROOT,
                "stale writes refused %d (lease no longer valid: %d, by the database's fence condition: %d)%n",
                tally.staleRefused(),
                tally.get(OrderOutcome.REFUSED_LEASE_INVALID),
                tally.get(OrderOutcome.REFUSED_BY_DATABASE));
        out.printf(
                Locale.ROOT,
                "shipped              %d (under a later lease than the sale's: %d)%n",
                shipping.shipments(),
                tally.shippedUnderNewLease());
        out.printf(
                Locale.ROOT,
                "stale calls refused  %d (lease no longer valid, not sent: %d, by the shipping service's fence: %d)%n",
                tally.staleCallsRefused(),
                tally.get(ShippingOutcome.REFUSED_BEFORE_SENDING),
                tally.get(ShippingOutcome.REFUSED_BY_RECEIVER));
        List<String> refusals = shipping.refusals();
        for (String refusal : refusals.subList(0, Math.min(refusals.size(), SHOWN_REFUSALS))) {
            String[] fields = refusal.split(" ");
            out.printf(
                    Locale.ROOT,
                    "  409 from shipping: lock '%s', token %s presented, newer token %s registered%n",
                    fields[0],
                    fields[1],
                    fields[2]);
        }
        if (refusals.size() > SHOWN_REFUSALS) {
            out.printf(Locale.ROOT, "  and %d more%n", refusals.size() - SHOWN_REFUSALS);
        }
        out.printf(Locale.ROOT, "lock wait timeouts   %d%n", tally.get(OrderOutcome.LOCK_TIMEOUT));
        out.printf(
                Locale.ROOT,
                "lock wait            p50 %.2f ms, p99 %.2f ms%n",
                tally.waits().percentileMillis(50),
                tally.waits().percentileMillis(99));
        out.printf(
                Locale.ROOT, "throughput           %.1f orders/s over %.2f s%n", database.orders() / seconds, seconds);
        out.println("invariants:");
        for (Check check : checks) {
            out.printf(Locale.ROOT, "  [%s] %s: %s%n", check.holds() ? "ok" : "FAILED", check.name(), check.evidence());
        }
        out.println(passed() ? "RESULT: all invariants hold" : "RESULT: INVARIANT VIOLATED");
    }
}
