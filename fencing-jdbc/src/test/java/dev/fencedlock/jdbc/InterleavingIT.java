package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.jdbc.FenceDatabases.Isolation;
import dev.fencedlock.jdbc.Schedules.Move;
import dev.fencedlock.jdbc.Schedules.Step;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two read-modify-write transactions of one lock (counter = read + 1) through every interleaving
 * of their read, write and commit, on each database and isolation level: zero lost updates, and an
 * older token never commits after a newer one. Overlapping holders are made for real, by deleting
 * the lock's key on a one-node Redlock between two grants, so that both leases are valid. A step
 * that blocks on a row lock is detected by asking the database, and the schedule goes on.
 *
 * <p>By default the overlapping holders start with the lock's fence row present and the
 * transactions of one lease with it absent (so the racing first insert is covered); with {@code
 * -Dfencedlock.fence.exhaustive=true} both run both ways.
 */
class InterleavingIT {
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final boolean EXHAUSTIVE = Boolean.getBoolean("fencedlock.fence.exhaustive");
    private static final List<List<Move>> SCHEDULES = Schedules.all(List.of(Step.values()));
    private static final long INITIAL = 100;
    private static final AtomicLong IDS = new AtomicLong();

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(1);

    private static final FenceDatabases databases = new FenceDatabases("fjil");
    private static LockClient redlock;
    private static LockClient local;

    @BeforeAll
    static void clients() throws InterruptedException {
        local = LockClient.create(LockConfig.builder().backend("local").build());
        redlock = LockClient.create(LockConfig.builder()
                .backend("redlock")
                .leaseTime(LEASE)
                .set(RedlockSettings.NODES, redis.servers().uris())
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(1))
                .set(RedlockSettings.RESTART_QUARANTINE, LEASE)
                .build());
        awaitQuarantine();
    }

    /** The just-started node counts only once it has been up for the quarantine (one lease time). */
    private static void awaitQuarantine() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                redlock.lock("warm-up").acquire(Duration.ZERO, LEASE).close();
                return;
            } catch (LockUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    @AfterAll
    static void close() {
        try {
            databases.close();
        } finally {
            if (redlock != null) {
                redlock.close();
            }
            if (local != null) {
                local.close();
            }
        }
    }

    /** Every database and isolation but SERIALIZABLE on H2, which the guard refuses (FenceGuardIT). */
    static Stream<Arguments> databasesAndIsolations() {
        return Arrays.stream(Kind.values())
                .flatMap(kind -> Arrays.stream(Isolation.values())
                        .filter(isolation -> kind != Kind.H2 || isolation != Isolation.SERIALIZABLE)
                        .map(isolation -> Arguments.of(kind, isolation)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndIsolations")
    void overlappingHoldersLoseNoUpdateAndTheOlderNeverCommitsAfterTheNewer(Kind kind, Isolation isolation)
            throws Exception {
        TestDatabase db = databases.get(kind);
        List<String> violations = new ArrayList<>();
        for (boolean seeded : EXHAUSTIVE ? List.of(true, false) : List.of(true)) {
            for (List<Move> schedule : SCHEDULES) {
                long id = IDS.incrementAndGet();
                String lockName = "counter-" + id;
                Lease[] leases = overlappingLeases(db, lockName, id, seeded);
                try {
                    Outcome outcome = run(db, schedule, leases, true, isolation, id);
                    String where = kind + " " + isolation + (seeded ? " row present " : " row absent ") + schedule;
                    checkNoLostUpdate(where, outcome, violations);
                    checkTokenOrder(where, outcome, violations);
                } finally {
                    leases[0].close();
                    leases[1].close();
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndIsolations")
    void twoTransactionsOfOneLeaseLoseNoUpdate(Kind kind, Isolation isolation) throws Exception {
        TestDatabase db = databases.get(kind);
        List<String> violations = new ArrayList<>();
        for (boolean seeded : EXHAUSTIVE ? List.of(false, true) : List.of(false)) {
            for (List<Move> schedule : SCHEDULES) {
                long id = IDS.incrementAndGet();
                try (Lease lease = local.lock("counter-" + id).acquire(Duration.ofSeconds(5), Duration.ofMinutes(5))) {
                    seed(db, id, seeded ? lease : null);
                    Outcome outcome = run(db, schedule, new Lease[] {lease, lease}, true, isolation, id);
                    String where = kind + " " + isolation + (seeded ? " row present " : " row absent ") + schedule;
                    checkNoLostUpdate(where, outcome, violations);
                    for (Throwable failure : outcome.failures()) {
                        if (failure != null && !FencedTransaction.isConcurrencyFailure(failure)) {
                            violations.add(where + ": unexpected " + failure);
                        }
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    /**
     * The control: the same schedules and statements with the guard skipped lose updates, so the
     * fenced cases above can fail.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    void withoutTheGuardTheSameSchedulesLoseUpdates(Kind kind) throws Exception {
        TestDatabase db = databases.get(kind);
        int lost = 0;
        List<String> lostIn = new ArrayList<>();
        for (List<Move> schedule : SCHEDULES) {
            long id = IDS.incrementAndGet();
            String lockName = "counter-" + id;
            Lease[] leases = overlappingLeases(db, lockName, id, false);
            try {
                Outcome outcome = run(db, schedule, leases, false, Isolation.READ_COMMITTED, id);
                if (outcome.finalValue() != INITIAL + outcome.commits()) {
                    lost++;
                    lostIn.add(schedule.toString());
                }
            } finally {
                leases[0].close();
                leases[1].close();
            }
        }
        // both read before either writes: 6 of the 20 schedules, whatever the order of the rest
        assertThat(lost)
                .as("schedules that lost an update without the guard: %s", lostIn)
                .isGreaterThanOrEqualTo(6);
    }

    /** Two valid leases of one lock, the second granted after the first's key was deleted. */
    private static Lease[] overlappingLeases(TestDatabase db, String lockName, long id, boolean seeded)
            throws InterruptedException, SQLException {
        if (seeded) {
            try (Lease first = redlock.lock(lockName).acquire(Duration.ofSeconds(5), LEASE)) {
                seed(db, id, first);
            }
        } else {
            seed(db, id, null);
        }
        Lease older = redlock.lock(lockName).acquire(Duration.ofSeconds(5), LEASE);
        redis.servers().get(0).command("DEL", RedlockKeys.lockKey(lockName));
        Lease newer = redlock.lock(lockName).acquire(Duration.ofSeconds(5), LEASE);
        assertThat(newer.token()).isGreaterThan(older.token());
        assertThat(older.isValid() && newer.isValid()).as("both holders valid").isTrue();
        return new Lease[] {older, newer};
    }

    /** The counter row, written under {@code lease} (which registers the fence row) or unfenced if null. */
    private static void seed(TestDatabase db, long id, Lease lease) throws SQLException {
        String insert = "insert into counter (id, counter_value, last_writer) values (?, ?, 0)";
        if (lease == null) {
            db.execute(insert, id, INITIAL);
            return;
        }
        JdbcFencing.inTransaction(db.dataSource(), lease, c -> {
            try (var statement = c.prepareStatement(insert)) {
                statement.setLong(1, id);
                statement.setLong(2, INITIAL);
                return statement.executeUpdate();
            }
        });
    }

    private static Outcome run(
            TestDatabase db, List<Move> schedule, Lease[] leases, boolean fenced, Isolation isolation, long id)
            throws SQLException, InterruptedException {
        LockWaits waits = new LockWaits(db);
        try (Connection first = db.connection();
                Connection second = db.connection()) {
            Connection[] connections = {first, second};
            long[] sessions = new long[2];
            SteppedTransaction[] transactions = new SteppedTransaction[2];
            for (int i = 0; i < 2; i++) {
                connections[i].setTransactionIsolation(isolation.level);
                sessions[i] = LockWaits.sessionId(connections[i]);
                transactions[i] = new SteppedTransaction(connections[i], leases[i], fenced, id, "tx" + (i + 1));
            }
            for (Move move : schedule) {
                SteppedTransaction transaction = transactions[move.transaction()];
                transaction.release(move.step());
                awaitStepOrBlocked(transaction, move, waits, sessions[move.transaction()]);
            }
            for (SteppedTransaction transaction : transactions) {
                if (!transaction.awaitEnd()) {
                    fail("a transaction of " + schedule + " did not end");
                }
            }
            return new Outcome(
                    transactions[0].committed(),
                    transactions[1].committed(),
                    transactions[0].failure(),
                    transactions[1].failure(),
                    leases[0].token(),
                    leases[1].token(),
                    db.queryLong("select counter_value from counter where id = ?", id),
                    db.queryLong("select last_writer from counter where id = ?", id));
        }
    }

    /** Waits for the step to run, unless its transaction waits for a row lock the other one holds. */
    private static void awaitStepOrBlocked(SteppedTransaction transaction, Move move, LockWaits waits, long session)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SteppedTransaction.STEP_BOUND_SECONDS);
        while (!transaction.awaitPassed(move.step(), waits.pollMillis())) {
            if (waits.isWaiting(session)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail(move + " neither ran nor waited for a lock");
            }
        }
    }

    private static void checkNoLostUpdate(String where, Outcome outcome, List<String> violations) {
        if (outcome.finalValue() != INITIAL + outcome.commits()) {
            violations.add(where + ": lost update, " + outcome);
        }
    }

    private static void checkTokenOrder(String where, Outcome outcome, List<String> violations) {
        if (outcome.olderCommitted() && outcome.newerCommitted() && outcome.lastWriter() != outcome.newerToken()) {
            violations.add(where + ": the older token committed after the newer, " + outcome);
        }
        if (outcome.newerFailure() instanceof FenceRefusedException refused
                && refused.reason() == FenceRefusedException.Reason.NEWER_TOKEN_REGISTERED) {
            violations.add(where + ": the newer token was refused, " + outcome);
        }
        Throwable older = outcome.olderFailure();
        if (older instanceof FenceRefusedException refusal
                && refusal.reason() == FenceRefusedException.Reason.NEWER_TOKEN_REGISTERED
                && (refusal.newerToken().orElse(-1) != outcome.newerToken()
                        || refusal.token() != outcome.olderToken())) {
            violations.add(where + ": the refusal names the wrong tokens, " + outcome);
        }
        for (Throwable failure : outcome.failures()) {
            if (failure != null
                    && !(failure instanceof FenceRefusedException)
                    && !FencedTransaction.isConcurrencyFailure(failure)) {
                violations.add(where + ": unexpected " + failure);
            }
        }
    }

    /** Transaction 0 holds the older token, transaction 1 the newer (or the same, under one lease). */
    private record Outcome(
            boolean olderCommitted,
            boolean newerCommitted,
            Throwable olderFailure,
            Throwable newerFailure,
            long olderToken,
            long newerToken,
            long finalValue,
            long lastWriter) {
        int commits() {
            return (olderCommitted ? 1 : 0) + (newerCommitted ? 1 : 0);
        }

        List<Throwable> failures() {
            return Arrays.asList(olderFailure, newerFailure);
        }
    }
}
