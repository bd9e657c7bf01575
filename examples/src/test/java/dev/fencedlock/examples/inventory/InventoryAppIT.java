package dev.fencedlock.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the example end to end and checks its invariants: no oversell, sold + remaining = initial,
 * orders = sales = shipments, the stalled worker's late write refused by the fence and its late
 * shipping call refused by the shipping service.
 */
class InventoryAppIT {

    record Run(int exitCode, String output) {
        long figure(String label) {
            Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(label) + "\\s+(\\d+)")
                    .matcher(output);
            assertThat(matcher.find())
                    .as("summary line '%s' in:%n%s", label, output)
                    .isTrue();
            return Long.parseLong(matcher.group(1));
        }

        /** The number the summary prints after {@code phrase} and a colon. */
        long countAfter(String phrase) {
            Matcher matcher =
                    Pattern.compile(Pattern.quote(phrase) + ": (\\d+)").matcher(output);
            assertThat(matcher.find()).as("'%s' in:%n%s", phrase, output).isTrue();
            return Long.parseLong(matcher.group(1));
        }
    }

    /**
     * A short run on the backend {@code backendArgs} name: 6 workers, 2 SKUs x 30 units (60 in all),
     * lease 1 s, worker 0 stalling 2.5 s.
     */
    static Run shortRun(String... backendArgs) {
        List<String> args = new ArrayList<>(List.of(backendArgs));
        args.addAll(List.of("--workers", "6", "--skus", "2", "--stock", "30", "--lease", "1s", "--stall", "2500ms"));
        return run(args.toArray(String[]::new));
    }

    static Run run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = InventoryApp.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    static void assertInvariantsHold(Run run, long initial) {
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("RESULT: all invariants hold");
        assertThat(run.figure("initial stock")).isEqualTo(initial);
        assertThat(run.figure("sold")).isEqualTo(initial);
        assertThat(run.figure("remaining")).isZero();
        assertThat(run.figure("stale writes refused")).isGreaterThanOrEqualTo(1);
        assertThat(run.figure("shipped"))
                .as("units shipped, in:%n%s", run.output())
                .isEqualTo(initial);
        assertThat(run.countAfter("by the shipping service's fence"))
                .as("stale calls the shipping service refused, in:%n%s", run.output())
                .isGreaterThanOrEqualTo(1);
        assertThat(run.output())
                .contains("[ok] every shipment belongs to a committed order (no stale shipment)")
                .contains("[ok] stalled worker's late call refused by the shipping service")
                .containsPattern("409 from shipping: lock 'inventory:sku-\\d+', token \\d+ presented, newer token"
                        + " \\d+ registered");
        if (run.output().contains("has its lock deleted on the backend")) {
            assertThat(run.countAfter("by the database's fence condition"))
                    .as("writes the database itself refused, in:%n%s", run.output())
                    .isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void embeddedDefaultSellsEveryUnitOnceAndRefusesTheStalledWrite() {
        Run run = shortRun();
        assertThat(run.output())
                .contains("zookeeper at")
                .contains("(embedded)")
                .contains("shipping: a service in its own process at http://127.0.0.1:")
                .contains("worker 1 has its lock deleted on the backend")
                .contains("[ok] write under a broken lock refused by the database");
        assertInvariantsHold(run, 60);
    }

    @Test
    void workersInSeparateProcessesShareOnePostgreSqlDatabase() {
        try (TestDatabase db = TestDatabase.createShared(Kind.POSTGRESQL, "examples", 2)) {
            Run run = run(
                    "--processes",
                    "2",
                    "--workers",
                    "4",
                    "--skus",
                    "2",
                    "--stock",
                    "20",
                    "--lease",
                    "1500ms",
                    "--stall",
                    "3500ms",
                    "--jdbc-url",
                    db.jdbcUrl(),
                    "--db-user",
                    db.user());
            assertThat(run.output()).contains("2 process(es)").contains("jdbc:postgresql://");
            assertInvariantsHold(run, 40);
        }
    }

    /**
     * {@code --backend jdbc} keeps the lock table in the run's own database, and the tables go to the
     * schema the URL names with {@code currentSchema=} (the test's private schema), not to the
     * example's default schema.
     */
    @Test
    void theJdbcBackendKeepsItsLocksInTheSchemaTheUrlNames() {
        try (TestDatabase db = TestDatabase.createShared(Kind.POSTGRESQL, "examplesjdbc", 2)) {
            assertThat(db.jdbcUrl()).contains("currentSchema=" + db.schema());
            Run run = run(
                    "--backend",
                    "jdbc",
                    "--workers",
                    "4",
                    "--skus",
                    "2",
                    "--stock",
                    "20",
                    "--lease",
                    "1500ms",
                    "--stall",
                    "3500ms",
                    "--jdbc-url",
                    db.jdbcUrl(),
                    "--db-user",
                    db.user());
            assertThat(run.output()).contains("locks: jdbc");
            assertInvariantsHold(run, 40);
            assertThat(db.queryLong(
                            "select count(*) from information_schema.tables where table_schema = ?"
                                    + " and table_name in ('inventory', 'orders', 'fencedlock_fence', 'fencedlock_lock')",
                            db.schema()))
                    .as("the example's and fencedlock's tables in the URL's schema %s", db.schema())
                    .isEqualTo(4);
            assertThat(db.queryLong("select count(*) from fencedlock_lock where token > 0"))
                    .as("locks granted by the jdbc backend, in its table")
                    .isEqualTo(2);
        }
    }

    @Test
    void aCurrentSchemaThatIsNoPlainIdentifierIsRefused() {
        assertThat(InventoryDatabase.schemaOf("jdbc:postgresql://h/test?currentSchema=app_1&ssl=false"))
                .isEqualTo("app_1");
        assertThat(InventoryDatabase.schemaOf("jdbc:postgresql://h/test")).isEqualTo(InventoryDatabase.DEFAULT_SCHEMA);
        Run run = run("--jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=a-b");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.output()).contains("currentSchema in --jdbc-url must be one plain identifier");
    }

    @Test
    void badArgumentsExitWithUsage() {
        Run run = run("--workers", "zero");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.output())
                .contains("--workers needs a whole number, got 'zero'")
                .contains("Usage:");
    }
}
