package dev.fencedlock.examples.inventory;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end-of-run report: the figures, and the invariants that prove the run was correct. The
 * database is the judge: what the workers believe they sold is checked against what it holds.
 */
final class RunSummary {
    /** One invariant, with the figures it compared. */
    record Check(String name, String evidence, boolean holds) {}

    private final long initial;
    private final InventoryDatabase.Snapshot database;
    private final WorkerTally tally;
    private final Duration elapsed;
    private final String backend;
    private final List<Check> checks = new ArrayList<>();

    RunSummary(
            String backend,
            long initial,
            InventoryDatabase.Snapshot database,
            WorkerTally tally,
            boolean stallInjected,
            boolean lockBreakInjected,
            Duration elapsed) {
        this.backend = backend;
        this.initial = initial;
        this.database = database;
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
        if (stallInjected) {
            checks.add(new Check(
                    "stalled worker's late write refused",
                    tally.staleRefused() + " stale writes refused",
                    tally.staleRefused() >= 1));
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
