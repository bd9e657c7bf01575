package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import dev.fencedlock.testkit.process.ProcessSignals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A holder stalled inside its fenced transaction, for real: {@link StalledHolder} runs in a JVM of
 * its own, enters its fenced transaction, writes, and is stopped with SIGSTOP while the
 * transaction is open, as a long GC pause or a stopped container would stop it. The next holder of
 * the lock (a higher token, a lease of its own) then runs its fenced transaction. On PostgreSQL and
 * MariaDB the server ends the stalled transaction once it has sat idle past the stalled holder's
 * lease (plus {@link GuardStatements#IDLE_GRACE}), and the next holder commits while the stalled
 * JVM is still stopped; on H2, which cannot end it, the next holder's wait is bounded by {@code
 * LOCK_TIMEOUT} and reported as {@link FenceRowBusyException}. In every case the stalled holder's
 * write never lands, it gets an error when continued, and every session the test opened is gone at
 * the end. Times are printed, and only bounded generously.
 */
class StalledHolderIT {
    /** The stalled holder's lease. */
    private static final Duration LEASE = Duration.ofSeconds(3);
    /** What a loaded machine may add to the server's own bound; far above what is measured. */
    private static final Duration SLACK = Duration.ofSeconds(20);

    private static final Duration STEP = Duration.ofSeconds(60);
    private static final long STALLED_TOKEN = 10;
    private static final long NEXT_TOKEN = 11;

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void theServerEndsTheStalledTransactionAndTheNextHolderCommits(Kind kind) throws Exception {
        try (TestDatabase db = database(kind);
                Sessions sessions = Sessions.of(db)) {
            long before = sessions.count();
            long nextSession;
            Duration afterStall;
            String late;
            long stalledSession;
            try (Child stalled = Child.start(sessions, lock(kind))) {
                stalledSession = Long.parseLong(stalled.expect("SESSION").split(" ")[1]);
                assertThat(sessions.count())
                        .as("the count sees the test's sessions")
                        .isGreaterThan(before);
                stalled.expect("WROTE");
                long stoppedAt = System.nanoTime();
                stalled.stop();

                try (Connection next = sessions.open()) {
                    nextSession = LockWaits.sessionId(next);
                    JdbcFencing.inTransaction(
                            next, new FixedLease(lock(kind), NEXT_TOKEN, STEP), c -> StalledHolder.write(c, "next"));
                }
                afterStall = Duration.ofNanos(System.nanoTime() - stoppedAt);
                assertThat(sessions.waits.isOpen(stalledSession))
                        .as("the server ended the stalled holder's session while its JVM was still stopped")
                        .isFalse();
                assertThat(writer(db)).isEqualTo("next");

                stalled.resume();
                stalled.send("GO");
                late = stalled.expect("COMMITTED", "FAILED");
                stalled.awaitExit();
            }
            System.out.printf(
                    "%s: stalled holder (lease %d ms, idle grace %d ms) stopped; the next holder committed %d ms "
                            + "after the stop; the continued stalled holder got: %s%n",
                    kind, LEASE.toMillis(), FencedTransaction.IDLE_GRACE.toMillis(), afterStall.toMillis(), late);
            assertThat(afterStall)
                    .as("the next holder went on within the stalled lease, the grace and a generous slack")
                    .isLessThan(LEASE.plus(FencedTransaction.IDLE_GRACE).plus(SLACK));
            assertThat(late)
                    .as("the continued holder is told, not hung")
                    .startsWith("FAILED " + FenceRefusedException.class.getName())
                    .contains("ended by the database");
            if (kind == Kind.POSTGRESQL) {
                assertThat(late).contains("SQLState 25P03:");
            } else {
                assertThat(late).containsPattern("SQLState 08\\w{3}:");
            }
            assertThat(writer(db)).as("the stalled holder's write never landed").isEqualTo("next");
            sessions.assertGone(before, stalledSession, nextSession);
        }
    }

    /**
     * H2 (in server mode, the stalled holder in another JVM) has no idle timeout: nothing ends the
     * stalled transaction. The next holder's wait is bounded by its session's {@code LOCK_TIMEOUT}
     * and fails with {@link FenceRowBusyException}; when the stalled holder is continued, its lease
     * check before the commit refuses it, and the next holder's retry commits.
     */
    @Test
    void onH2TheNextHoldersWaitIsBoundedAndReportedUntilTheStalledHolderWakes() throws Exception {
        try (TestDatabase db = database(Kind.H2);
                Sessions sessions = Sessions.of(db)) {
            long before = sessions.count();
            String lock = lock(Kind.H2);
            long nextSession;
            long stalledSession;
            String late;
            Duration waited;
            try (Child stalled = Child.start(sessions, lock);
                    Connection next = sessions.open()) {
                nextSession = LockWaits.sessionId(next);
                stalledSession = Long.parseLong(stalled.expect("SESSION").split(" ")[1]);
                assertThat(sessions.count())
                        .as("the count sees the test's sessions")
                        .isGreaterThan(before);
                stalled.expect("WROTE");
                stalled.stop();

                long start = System.nanoTime();
                FenceRowBusyException busy = catchThrowableOfType(
                        FenceRowBusyException.class,
                        () -> JdbcFencing.inTransaction(
                                next, new FixedLease(lock, NEXT_TOKEN, STEP), c -> StalledHolder.write(c, "next")));
                waited = Duration.ofNanos(System.nanoTime() - start);
                assertThat((Throwable) busy)
                        .as("the next holder's wait ends in a report")
                        .isNotNull();
                assertThat(busy.lockName()).isEqualTo(lock);
                assertThat(busy.token()).isEqualTo(NEXT_TOKEN);
                assertThat(busy.getMessage()).contains(lock).contains("older transaction");
                assertThat(waited)
                        .as("bounded by H2's LOCK_TIMEOUT")
                        .isLessThan(Duration.ofMillis(TestDatabase.H2_LOCK_TIMEOUT_MILLIS)
                                .plus(SLACK));
                assertThat(sessions.waits.isOpen(stalledSession))
                        .as("H2 does not end the stalled session")
                        .isTrue();

                stalled.resume();
                stalled.send("GO");
                late = stalled.expect("COMMITTED", "FAILED");
                stalled.awaitExit();
                JdbcFencing.inTransaction(
                        next, new FixedLease(lock, NEXT_TOKEN, STEP), c -> StalledHolder.write(c, "next"));
            }
            System.out.printf(
                    "H2: stalled holder stopped; the next holder's wait was ended by LOCK_TIMEOUT (%d ms) after %d ms"
                            + " with FenceRowBusyException; the continued stalled holder got: %s%n",
                    TestDatabase.H2_LOCK_TIMEOUT_MILLIS, waited.toMillis(), late);
            assertThat(late)
                    .as("the continued holder's lease ran out while it was stopped")
                    .startsWith("FAILED " + FenceRefusedException.class.getName())
                    .contains("at commit");
            assertThat(writer(db)).as("the stalled holder's write never landed").isEqualTo("next");
            sessions.assertGone(before, stalledSession, nextSession);
        }
    }

    private static TestDatabase database(Kind kind) {
        TestDatabase db = TestDatabase.createShared(kind, "fjstall", 2).migrate(FenceDatabases.MIGRATION);
        db.execute("create table stalled_write (id bigint primary key, writer varchar(20) not null)");
        db.execute("insert into stalled_write values (1, 'none')");
        // as after any earlier transaction of the lock: the stalled holder's guard updates the row
        db.execute("insert into " + FenceTable.DEFAULT_NAME + " (lock_name, token) values (?, ?)", lock(kind), 1L);
        return db;
    }

    private static String lock(Kind kind) {
        return "stall:" + kind.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static String writer(TestDatabase db) throws SQLException {
        try (Connection connection = db.connection();
                PreparedStatement statement = connection.prepareStatement("select writer from stalled_write");
                var rows = statement.executeQuery()) {
            rows.next();
            return rows.getString(1);
        }
    }

    /**
     * The sessions of the stalled holder and the next holder, told apart from the pool's by who
     * opens them: PostgreSQL by application name, MariaDB and H2 by a user of their own, made for
     * the test and dropped by {@link #close}.
     */
    private static final class Sessions implements AutoCloseable {
        private static final String PASSWORD = "stall";

        final LockWaits waits;
        final String url;
        final String user;
        final String password;
        private final TestDatabase db;

        private Sessions(TestDatabase db, String url, String user, String password) {
            this.db = db;
            this.waits = new LockWaits(db);
            this.url = url;
            this.user = user;
            this.password = password;
        }

        static Sessions of(TestDatabase db) {
            String name = db.schema();
            return switch (db.kind()) {
                case POSTGRESQL ->
                    new Sessions(db, db.jdbcUrl() + "&ApplicationName=" + name, db.user(), db.password());
                case MARIADB -> {
                    db.execute("create user '" + name + "'@'127.0.0.1' identified by '" + PASSWORD + "'");
                    db.execute("grant all on " + name + ".* to '" + name + "'@'127.0.0.1'");
                    yield new Sessions(db, db.jdbcUrl(), name, PASSWORD);
                }
                case H2 -> {
                    db.execute("create user " + name + " password '" + PASSWORD + "' admin");
                    yield new Sessions(db, db.jdbcUrl(), name, PASSWORD);
                }
            };
        }

        Connection open() throws SQLException {
            return DriverManager.getConnection(url, user, password);
        }

        /** How many sessions of the test's own the server has. */
        long count() {
            return switch (db.kind()) {
                case POSTGRESQL ->
                    db.queryLong("select count(*) from pg_stat_activity where application_name = ?", db.schema());
                case MARIADB ->
                    db.queryLong("select count(*) from information_schema.processlist where user = ?", user);
                case H2 ->
                    db.queryLong(
                            "select count(*) from information_schema.sessions where user_name = ?",
                            user.toUpperCase(java.util.Locale.ROOT));
            };
        }

        /**
         * The sessions {@code ids} are gone and the count is back to {@code before}. A closed session
         * may linger in the server's list for a moment: polled, bounded by {@link #STEP}.
         */
        void assertGone(long before, long... ids) throws InterruptedException {
            long deadline = System.nanoTime() + STEP.toNanos();
            for (long id : ids) {
                while (waits.isOpen(id)) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("session " + id + " is still open on the server: a leaked connection");
                    }
                    Thread.sleep(50);
                }
            }
            while (count() != before) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(
                            "the test's sessions on the server: " + count() + ", before it: " + before);
                }
                Thread.sleep(50);
            }
            System.out.printf(
                    "%s: the test's sessions on the server before %d, after %d%n", db.kind(), before, count());
        }

        @Override
        public void close() {
            if (db.kind() == Kind.MARIADB) {
                db.execute("drop user if exists '" + user + "'@'127.0.0.1'");
            }
        }
    }

    /** The stalled holder's JVM: lines in, lines out, always continued and ended by {@link #close}. */
    private static final class Child implements AutoCloseable {
        private final Process process;
        private final Writer in;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final List<String> seen = new ArrayList<>();

        private Child(Process process) {
            this.process = process;
            this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "stalled-holder-output");
            reader.setDaemon(true);
            reader.start();
        }

        static Child start(Sessions sessions, String lock) throws IOException {
            List<String> command = List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    StalledHolder.class.getName(),
                    sessions.url,
                    sessions.user,
                    sessions.password,
                    lock,
                    Long.toString(STALLED_TOKEN),
                    Long.toString(LEASE.toMillis()));
            return new Child(
                    new ProcessBuilder(command).redirectErrorStream(true).start());
        }

        private void read() {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("READ-FAILED " + e);
            }
        }

        /** The first line that starts with one of {@code prefixes}, skipping log lines; fails after {@link #STEP}. */
        String expect(String... prefixes) throws InterruptedException {
            long deadline = System.nanoTime() + STEP.toNanos();
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("the stalled holder did not say " + List.of(prefixes) + " within " + STEP
                            + "; it said " + seen);
                }
                seen.add(line);
                for (String prefix : prefixes) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
            }
        }

        void send(String line) throws IOException {
            in.write(line + "\n");
            in.flush();
        }

        void stop() {
            ProcessSignals.stop(process.pid());
        }

        void resume() {
            ProcessSignals.resume(process.pid());
        }

        void awaitExit() throws InterruptedException {
            assertThat(process.waitFor(STEP.toSeconds(), TimeUnit.SECONDS))
                    .as("the stalled holder exits once continued; it said %s", seen)
                    .isTrue();
        }

        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                ProcessSignals.resume(process.pid());
                process.destroyForcibly();
                process.waitFor(STEP.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }
}
