package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fence at its edges: a mark is worth nothing outside the transaction and savepoint
 * that set it. Each database gets a private schema ({@code f27_...}) with a protected table {@code
 * item} and an unprotected {@code note}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FenceEdgesIT {
    private static final AtomicLong TOKENS = new AtomicLong(1_000);
    private static final List<TestDatabase> OPEN = new ArrayList<>();

    /** The ways the fence's databases are reached: H2 embedded in this JVM and over TCP, PostgreSQL. */
    enum Target {
        H2_EMBEDDED(Kind.H2, false),
        H2_SERVER(Kind.H2, true),
        POSTGRESQL(Kind.POSTGRESQL, false);

        final Kind kind;
        final boolean shared;

        Target(Kind kind, boolean shared) {
            this.kind = kind;
            this.shared = shared;
        }
    }

    @AfterAll
    static void close() {
        OPEN.forEach(TestDatabase::close);
    }

    static TestDatabase database(Kind kind, boolean shared) {
        TestDatabase db = (shared ? TestDatabase.createShared(kind, "f27", 4) : TestDatabase.create(kind, "f27", 4))
                .migrate(FenceDatabases.MIGRATION);
        synchronized (OPEN) {
            OPEN.add(db);
        }
        db.execute("create table item (id bigint primary key, quantity bigint not null)");
        db.execute("create table note (id bigint primary key, body varchar(100))");
        db.execute("insert into item values (1, 10)");
        return db;
    }

    private static TestDatabase protectedDatabase(Target target) throws SQLException {
        TestDatabase db = database(target.kind, target.shared);
        FencedTables.protect(db.dataSource(), "item");
        return db;
    }

    /**
     * The older holder enters inside a savepoint and rolls it back (its row lock goes with
     * it); a newer holder enters, writes 100 and commits; the older one's write is then refused, so
     * 100 stays. Before the fix H2 let the older write through (9 won).
     */
    @ParameterizedTest
    @EnumSource(Target.class)
    void aGuardRolledBackToASavepointNoLongerMarksTheTransaction(Target target) throws Exception {
        TestDatabase db = protectedDatabase(target);
        long older = TOKENS.incrementAndGet();
        long newer = TOKENS.incrementAndGet();
        try (Connection a = db.connection();
                Statement statementA = a.createStatement()) {
            a.setAutoCommit(false);
            statementA.executeUpdate("insert into note values (1, 'before the savepoint')");
            Savepoint savepoint = a.setSavepoint();
            Fences.enter(a, "f27-stock", older);
            statementA.executeQuery("select quantity from item where id = 1").close();
            a.rollback(savepoint);

            JdbcFencing.inTransaction(db.dataSource(), new FixedLease("f27-stock", newer), c -> {
                try (Statement statement = c.createStatement()) {
                    return statement.executeUpdate("update item set quantity = 100 where id = 1");
                }
            });

            refusedWrite(
                    statementA,
                    "update item set quantity = 9 where id = 1",
                    "the write after the guard's savepoint was rolled back");
            a.rollback();
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(100);
    }

    /**
     * A savepoint rolled back after the guard leaves the guard's mark in place when the guard ran
     * before the savepoint: the fence row is still locked by the transaction.
     */
    @ParameterizedTest
    @EnumSource(Target.class)
    void aSavepointAfterTheGuardKeepsTheMark(Target target) throws Exception {
        TestDatabase db = protectedDatabase(target);
        try (Connection a = db.connection();
                Statement statement = a.createStatement()) {
            a.setAutoCommit(false);
            Fences.enter(a, "f27-kept", TOKENS.incrementAndGet());
            Savepoint savepoint = a.setSavepoint();
            statement.executeUpdate("update item set quantity = 1 where id = 1");
            a.rollback(savepoint);
            statement.executeUpdate("update item set quantity = 2 where id = 1");
            a.commit();
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(2);
    }

    /**
     * The guard's other ways in mark the transaction too: the lock's first row inserted, and a
     * second transaction of the same lease, which finds the row at its own token and only locks it.
     */
    @ParameterizedTest
    @EnumSource(Target.class)
    void everyWayThroughTheGuardLetsTheTransactionWrite(Target target) throws Exception {
        TestDatabase db = protectedDatabase(target);
        FixedLease lease = new FixedLease("f27-same-" + target, TOKENS.incrementAndGet());
        for (int i = 0; i < 2; i++) {
            JdbcFencing.inTransaction(db.dataSource(), lease, c -> {
                try (Statement statement = c.createStatement()) {
                    return statement.executeUpdate("update item set quantity = quantity + 1 where id = 1");
                }
            });
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(12);
    }

    /**
     * After protect() on a partitioned table, a write to a partition, a partition attached
     * later and an inheritance child are refused, and a partition attached later leaves the table
     * reported unprotected until protect() runs again. Before the fix every write to a partition
     * passed and unprotected() returned [].
     */
    @Test
    void partitionsAndInheritanceChildrenAreProtectedAndReported() throws Exception {
        TestDatabase db = database(Kind.POSTGRESQL, false);
        db.execute("create table part (id bigint not null, quantity bigint not null) partition by range (id)");
        db.execute("create table part_1 partition of part for values from (0) to (100)");
        db.execute("create table parent (id bigint primary key, quantity bigint not null)");
        db.execute("create table child () inherits (parent)");
        FencedTables.protect(db.dataSource(), "part", "parent");
        try (Connection connection = db.connection()) {
            assertThat(FencedTables.unprotected(connection, List.of("part", "part_1", "parent", "child")))
                    .isEmpty();
        }
        assertRefused(db, "insert into part_1 values (1, 1)");
        assertRefused(db, "insert into part values (2, 1)");
        assertRefused(db, "truncate part_1");
        assertRefused(db, "insert into child values (1, 1)");
        assertRefused(db, "update parent set quantity = 0");

        db.execute("create table part_2 (id bigint not null, quantity bigint not null)");
        db.execute("alter table part attach partition part_2 for values from (100) to (200)");
        try (Connection connection = db.connection()) {
            assertThat(FencedTables.unprotected(connection, List.of("part", "part_2", "parent")))
                    .as("a partition attached after protect(): its TRUNCATE is not yet refused")
                    .containsExactly("part", "part_2");
        }
        assertRefused(db, "insert into part_2 values (101, 1)");
        FencedTables.protect(db.dataSource(), "part");
        try (Connection connection = db.connection()) {
            assertThat(FencedTables.unprotected(connection, List.of("part", "part_2")))
                    .isEmpty();
        }
        assertRefused(db, "truncate part_2");
        assertThat(db.queryLong("select count(*) from part")).isZero();
        assertThat(db.queryLong("select count(*) from parent")).isZero();

        JdbcFencing.inTransaction(db.dataSource(), new FixedLease("f27-part", TOKENS.incrementAndGet()), c -> {
            try (Statement statement = c.createStatement()) {
                return statement.executeUpdate("insert into part values (1, 1), (150, 1)")
                        + statement.executeUpdate("insert into child values (1, 1)");
            }
        });
        assertThat(db.queryLong("select count(*) from part")).isEqualTo(2);
        assertThat(db.queryLong("select count(*) from parent")).isEqualTo(1);

        db.execute("create table alone (id bigint not null, quantity bigint not null) partition by range (id)");
        db.execute("create table alone_1 partition of alone for values from (0) to (100)");
        SQLException refused =
                catchThrowableOfType(SQLException.class, () -> FencedTables.protect(db.dataSource(), "alone_1"));
        assertThat((Throwable) refused).isNotNull();
        assertThat(refused.getMessage())
                .contains("alone_1")
                .contains("unprotected table")
                .contains("Protect alone");
    }

    /**
     * A fence trigger disabled or set to fire for replication only is reported, and
     * protect() enables it again. Before the fix unprotected() returned [] and protect() left it off.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {"disable trigger fencedlock_fence_required", "enable replica trigger fencedlock_fence_required"})
    void aDisabledTriggerIsReportedAndRepaired(String change) throws Exception {
        TestDatabase db = protectedDatabase(Target.POSTGRESQL);
        db.execute("alter table item " + change);
        try (Connection connection = db.connection()) {
            assertThat(FencedTables.unprotected(connection, List.of("item", "note")))
                    .containsExactly("item", "note");
        }
        FencedTables.protect(db.dataSource(), "item");
        try (Connection connection = db.connection()) {
            assertThat(FencedTables.unprotected(connection, List.of("item"))).isEmpty();
        }
        assertRefused(db, "update item set quantity = 0");
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(10);
    }

    /**
     * A mark or bypass set by hand for the session (a pooled connection's next borrower)
     * is worth nothing in a later transaction; so is one set on the JDBC URL. Before the fix each
     * let the unfenced write through.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "set fencedlock.fenced = '1 1 stock'",
                "set fencedlock.unfenced = 'forgot LOCAL'",
                "select set_config('fencedlock.fenced', txid_current()::text || ' 1 stock', false)"
            })
    void aMarkSetForTheSessionIsWorthNothingInTheNextTransaction(String setting) throws Exception {
        TestDatabase db = protectedDatabase(Target.POSTGRESQL);
        try (Connection connection = db.connection();
                Statement statement = connection.createStatement()) {
            statement.execute(setting);
            refusedWrite(statement, "update item set quantity = 0", "update item set quantity = 0");
            statement.execute("reset all");
        }
        try (Connection url = DriverManager.getConnection(
                        db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?")
                                + "options=-c%20fencedlock.unfenced=on%20-c%20fencedlock.fenced=1",
                        db.user(),
                        db.password());
                Statement statement = url.createStatement()) {
            assertThat(queryString(statement, "select current_setting('fencedlock.unfenced')"))
                    .isEqualTo("on");
            refusedWrite(statement, "update item set quantity = 0", "update item set quantity = 0");
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(10);
    }

    /** A role's setting: ALTER ROLE ... SET fencedlock.unfenced lets nothing through. */
    @Test
    void aBypassSetForARoleLetsNothingThrough() throws Exception {
        TestDatabase db = protectedDatabase(Target.POSTGRESQL);
        String role = db.schema() + "_role";
        db.execute("create role " + role + " login");
        try {
            db.execute("grant usage on schema " + db.schema() + " to " + role);
            db.execute("grant select, update on item to " + role);
            db.execute("alter role " + role + " set fencedlock.unfenced = 'always'");
            try (Connection connection = DriverManager.getConnection(db.jdbcUrl(), role, "");
                    Statement statement = connection.createStatement()) {
                assertThat(queryString(statement, "select current_setting('fencedlock.unfenced')"))
                        .isEqualTo("always");
                refusedWrite(statement, "update item set quantity = 0", "update item set quantity = 0");
            }
        } finally {
            db.execute("drop owned by " + role);
            db.execute("drop role " + role);
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(10);
    }

    private static void assertRefused(TestDatabase db, String sql) throws SQLException {
        try (Connection connection = db.connection();
                Statement statement = connection.createStatement()) {
            refusedWrite(statement, sql, sql);
        }
    }

    /** Runs {@code sql}, which must be refused by the fence's trigger; the refusal. */
    private static SQLException refusedWrite(Statement statement, String sql, String description) {
        SQLException refused = catchThrowableOfType(SQLException.class, () -> statement.executeUpdate(sql));
        assertThat((Throwable) refused).as(description).isNotNull();
        assertThat(refused.getSQLState()).as(description).isEqualTo(FencedTables.REFUSED_SQLSTATE);
        return refused;
    }

    private static String queryString(Statement statement, String sql) throws SQLException {
        try (ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }

    /**
     * On MariaDB: a stale holder that catches its refusal and writes anyway in the same
     * transaction is refused by the database (before, only the client-side check could refuse, and
     * plain JDBC had none).
     */
    @Test
    void onMariaDbAStaleHolderThatIgnoresItsRefusalCannotWrite() throws Exception {
        TestDatabase db = database(Kind.MARIADB, false);
        FencedTables.protect(db.dataSource(), "item");
        long older = TOKENS.incrementAndGet();
        long newer = TOKENS.incrementAndGet();
        try (Connection stale = db.connection();
                Statement statement = stale.createStatement()) {
            // the older holder's earlier transaction on this connection: its mark names the older token
            stale.setAutoCommit(false);
            Fences.enter(stale, "f27-stale", older);
            statement.executeUpdate("update item set quantity = 11 where id = 1");
            stale.commit();

            JdbcFencing.inTransaction(db.dataSource(), new FixedLease("f27-stale", newer), c -> {
                try (Statement write = c.createStatement()) {
                    return write.executeUpdate("update item set quantity = 100 where id = 1");
                }
            });

            assertThat(catchThrowableOfType(FenceRefusedException.class, () -> Fences.enter(stale, "f27-stale", older)))
                    .isNotNull();
            SQLException refused = refusedWrite(
                    statement, "update item set quantity = 9 where id = 1", "the write after the swallowed refusal");
            assertThat(refused.getMessage()).contains("item");
            stale.rollback();
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(100);
    }

    /**
     * MariaDB's mark outlives the transaction unless afterCompletion clears it: cleared, the next
     * transaction on the connection is refused; left (a caller that skips afterCompletion), the
     * next transaction writes only while no newer holder has entered, and is refused once one has.
     */
    @Test
    void onMariaDbALeftOverMarkNeverWritesAroundANewerHolder() throws Exception {
        TestDatabase db = database(Kind.MARIADB, false);
        FencedTables.protect(db.dataSource(), "item");
        try (Connection connection = db.connection();
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            FencedTransaction left = Fences.enter(connection, "f27-left", TOKENS.incrementAndGet());
            connection.commit();
            left.afterCompletion();
            refusedWrite(statement, "update item set quantity = 1 where id = 1", "after afterCompletion");
            connection.rollback();

            Fences.enter(connection, "f27-left", TOKENS.incrementAndGet());
            connection.commit();
            JdbcFencing.inTransaction(db.dataSource(), new FixedLease("f27-left", TOKENS.incrementAndGet()), c -> 0);
            refusedWrite(
                    statement,
                    "update item set quantity = 2 where id = 1",
                    "a left-over mark after a newer holder entered");
            connection.rollback();
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(10);
    }

    /**
     * An H2 client with {@code AUTO_RECONNECT=TRUE} whose server restarts gets its session
     * variables (the mark) replayed into a new session, while transaction numbers start again. A
     * transaction steered to draw the mark's number, with no guard run, is refused. Before the fix
     * the mark (the number alone) let it write.
     */
    @Test
    void anH2MarkReplayedByAutoReconnectIsWorthNothing(@TempDir Path directory) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        String[] serverArgs = {
            "-tcp", "-tcpPort", Integer.toString(port), "-baseDir", directory.toString(), "-ifNotExists"
        };
        Server server = Server.createTcpServer(serverArgs).start();
        String url = "jdbc:h2:tcp://localhost:" + port + "/f27reconnect;AUTO_RECONNECT=TRUE";
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute(new String(
                    FenceEdgesIT.class
                            .getResourceAsStream("/db/fencedlock/migration/V1__fencedlock_fence.sql")
                            .readAllBytes(),
                    StandardCharsets.UTF_8));
            statement.execute("create table item (id bigint primary key, quantity bigint not null)");
            statement.execute("create table note (id bigint primary key, body varchar(100))");
            statement.execute("insert into item values (1, 10)");
            FencedTables.protect(connection, "item");

            connection.setAutoCommit(false);
            Fences.enter(connection, "f27-reconnect", TOKENS.incrementAndGet());
            long marked = Long.parseLong(queryString(statement, "select transaction_id()"));
            connection.commit();

            connection.setAutoCommit(true);
            server.stop();
            server = Server.createTcpServer(serverArgs).start();
            // H2 reconnects a session in autocommit mode only
            assertThat(queryString(statement, "select 1")).isEqualTo("1");
            connection.setAutoCommit(false);

            // the reconnected session replays the mark; steer a transaction to the mark's number
            long drawn = -1;
            for (int note = 1; note <= marked + 5 && drawn < marked; note++) {
                statement.executeUpdate("insert into note values (" + note + ", 'steering')");
                drawn = Long.parseLong(queryString(statement, "select transaction_id()"));
                if (drawn < marked) {
                    connection.rollback();
                }
            }
            assertThat(drawn)
                    .as("a transaction drew the mark's number %d", marked)
                    .isEqualTo(marked);
            assertThat(queryString(statement, "select cast(@FENCEDLOCK_FENCED as varchar)"))
                    .as("the mark replayed into the new session")
                    .startsWith(Long.toString(marked));
            refusedWrite(statement, "update item set quantity = 0 where id = 1", "the replayed mark");
            connection.rollback();
            assertThat(queryString(statement, "select quantity from item where id = 1"))
                    .isEqualTo("10");
        } finally {
            server.stop();
        }
    }
}
