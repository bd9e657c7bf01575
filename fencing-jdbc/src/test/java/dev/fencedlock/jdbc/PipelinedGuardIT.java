package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.testkit.db.MariaDbRoundTrips;
import dev.fencedlock.testkit.db.PostgresRoundTrips;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The guard sent in one round trip with the work's first statement (PostgreSQL through pgjdbc,
 * MariaDB through Connector/J with {@code allowMultiQueries=true}): no round trip of its own, and
 * the work's first statement has no effect whenever the guard fails. "No effect" is shown with a
 * sequence, which a rollback does not put back: a {@code nextval} that ran leaves the sequence
 * advanced even though its transaction was rolled back. Every case runs on PostgreSQL with pgjdbc's
 * default protocol, with server-side prepared statements from the first execution ({@code
 * prepareThreshold=1}, after warm-up) and with the simple protocol; and on MariaDB with the
 * driver's defaults (the guard alone), with {@code allowMultiQueries=true} (the guard with the
 * first statement), and with that and server-side prepared statements (the guard alone: the driver
 * would first try to prepare the query of two statements, a round trip more).
 */
class PipelinedGuardIT {
    private static final AtomicLong IDS = new AtomicLong();
    private static final AtomicLong TOKENS = new AtomicLong(1_000);
    private static final Map<Kind, TestDatabase> DATABASES = new EnumMap<>(Kind.class);

    /** The database and how the driver talks to it. */
    enum Mode {
        POSTGRESQL_DEFAULT(Kind.POSTGRESQL, true),
        POSTGRESQL_SERVER_PREPARED(Kind.POSTGRESQL, true, "prepareThreshold", "1"),
        POSTGRESQL_SIMPLE_PROTOCOL(Kind.POSTGRESQL, true, "preferQueryMode", "simple"),
        MARIADB_GUARD_ALONE(Kind.MARIADB, false),
        MARIADB_MULTI_QUERIES(Kind.MARIADB, true, "allowMultiQueries", "true"),
        MARIADB_MULTI_QUERIES_SERVER_PREPARED(
                Kind.MARIADB, false, "allowMultiQueries", "true", "useServerPrepStmts", "true");

        final Kind kind;
        /** Whether the guard travels with the work's first statement. */
        final boolean pipelines;
        /** The driver's properties, name and value after each other. */
        final String[] properties;

        Mode(Kind kind, boolean pipelines, String... properties) {
            this.kind = kind;
            this.pipelines = pipelines;
            this.properties = properties;
        }

        TestDatabase db() {
            return DATABASES.get(kind);
        }

        /** A query of {@code sequence}'s next value, its one parameter multiplied by 0. */
        String nextval(String sequence) {
            return kind == Kind.POSTGRESQL
                    ? "select nextval('" + sequence + "') + 0 * ?"
                    : "select nextval(" + sequence + ") + 0 * ?";
        }
    }

    @BeforeAll
    static void databases() throws SQLException {
        for (Kind kind : new Kind[] {Kind.POSTGRESQL, Kind.MARIADB}) {
            TestDatabase db = TestDatabase.create(kind, "fjpipe", 4).migrate(FenceDatabases.MIGRATION);
            DATABASES.put(kind, db);
            db.execute("create table item (id bigint primary key, quantity bigint not null)");
            db.execute("create table guarded_item (id bigint primary key, quantity bigint not null)");
            FencedTables.protect(db.dataSource(), "guarded_item");
        }
    }

    @AfterAll
    static void close() {
        DATABASES.values().forEach(TestDatabase::close);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aStaleTokenRunsNothingOfTheFirstStatement(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        String name = "stale-" + IDS.incrementAndGet();
        String sequence = newSequence(mode);
        long newer = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            warmUp(connection, mode, sequence);
            JdbcFencing.inTransaction(connection, new FixedLease(name, newer), c -> 0);
            long before = sequenceValue(mode, sequence);
            AtomicBoolean completed = new AtomicBoolean();

            Throwable thrown =
                    catchThrowable(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, newer - 1), c -> {
                        long value = nextval(c, mode, sequence);
                        completed.set(true);
                        return value;
                    }));

            assertThat(thrown)
                    .isInstanceOf(FenceRefusedException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining(Long.toString(newer - 1))
                    .hasMessageContaining(Long.toString(newer));
            assertThat(completed).isFalse();
            assertThat(sequenceValue(mode, sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
            assertThat(fenceToken(db, name)).isEqualTo(newer);
            assertThat(connection.getAutoCommit()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aBusyFenceRowRunsNothingOfTheFirstStatement(Mode mode) throws Exception {
        String name = "busy-" + IDS.incrementAndGet();
        String sequence = newSequence(mode);
        long token = TOKENS.addAndGet(10);
        try (Connection holder =
                        connect(mode.kind == Kind.POSTGRESQL ? Mode.POSTGRESQL_DEFAULT : Mode.MARIADB_GUARD_ALONE);
                Connection connection = connect(mode)) {
            warmUp(connection, mode, sequence);
            JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> 0);
            holder.setAutoCommit(false);
            Fences.enter(holder, name, token + 1);
            long before = sequenceValue(mode, sequence);
            try {
                Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(
                        connection,
                        new FixedLease(name, token + 2, Duration.ofMillis(300)),
                        c -> nextval(c, mode, sequence)));

                assertThat(thrown).isInstanceOf(FenceRowBusyException.class).hasMessageContaining(name);
                assertThat(sequenceValue(mode, sequence))
                        .as("the first statement never ran")
                        .isEqualTo(before);
            } finally {
                holder.rollback();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aLocksFirstTransactionRunsItsFirstStatementExactlyOnce(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        String name = "first-" + IDS.incrementAndGet();
        String sequence = newSequence(mode);
        long token = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            warmUp(connection, mode, sequence);
            long before = sequenceValue(mode, sequence);

            long value =
                    JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> nextval(c, mode, sequence));

            assertThat(value).isEqualTo(before + 1);
            assertThat(sequenceValue(mode, sequence)).isEqualTo(before + 1);
            assertThat(fenceToken(db, name)).isEqualTo(token);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aMissingFenceTableRunsNothingOfTheFirstStatementAndSaysHowToCreateIt(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        String sequence = newSequence(mode);
        String empty = db.schema() + "_nofence";
        db.execute((mode.kind == Kind.POSTGRESQL ? "create schema " : "create database ") + empty);
        try (Connection connection = connect(mode, empty)) {
            long before = sequenceValue(mode, sequence);

            Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(
                    connection,
                    new FixedLease("missing-" + IDS.incrementAndGet(), 1),
                    c -> nextval(c, mode, db.schema() + "." + sequence)));

            assertThat(thrown).isInstanceOf(SQLSyntaxErrorException.class).hasMessageContaining("Flyway");
            assertThat(sequenceValue(mode, sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
        } finally {
            db.execute(mode.kind == Kind.POSTGRESQL ? "drop schema " + empty + " cascade" : "drop database " + empty);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void theWorksOwnFailureIsThrownAsTheDriverReportedItAndNothingIsKept(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        String name = "own-failure-" + IDS.incrementAndGet();
        long token = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> 0);

            // division by zero; MariaDB: a negative unsigned number
            boolean postgres = mode.kind == Kind.POSTGRESQL;
            String failing = postgres ? "select 1 / (0 * ?)" : "select cast(? as unsigned) - 1";
            Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(
                    connection, new FixedLease(name, token + 1), c -> query(c, failing, postgres ? 1 : 0)));

            assertThat(thrown).isInstanceOf(SQLException.class);
            assertThat(((SQLException) thrown).getSQLState()).isEqualTo(postgres ? "22012" : "22003");
            assertThat(fenceToken(db, name))
                    .as("the guard's raise was rolled back with the work")
                    .isEqualTo(token);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aWorkThatRunsNoStatementIsStillRefusedWhenStale(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        String name = "empty-" + IDS.incrementAndGet();
        long newer = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, newer), c -> 0);

            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, newer - 1), c -> 0))
                    .isInstanceOf(FenceRefusedException.class);
            JdbcFencing.inTransaction(connection, new FixedLease(name, newer + 1), c -> 0);
            assertThat(fenceToken(db, name))
                    .as("an empty work registers its token")
                    .isEqualTo(newer + 1);
        }
    }

    /** Every shape of first use the work may take, each with the results plain JDBC gives. */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void theWorksStatementsBehaveAsOnThePlainConnection(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        String name = "shapes-" + IDS.incrementAndGet();
        long id = IDS.incrementAndGet();
        long token = TOKENS.addAndGet(10);
        db.execute("insert into item values (?, 10)", id);
        try (Connection connection = connect(mode)) {
            // a query first, then the same statement again with other parameters
            List<Long> read = JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> {
                List<Long> values = new ArrayList<>();
                try (PreparedStatement select = c.prepareStatement("select quantity + ? from item where id = ?")) {
                    assertThat(select.getConnection()).isSameAs(c);
                    select.setLong(2, id);
                    select.setLong(1, 1);
                    try (ResultSet rows = select.executeQuery()) {
                        rows.next();
                        values.add(rows.getLong(1));
                        select.setLong(1, 2);
                        values.add(rows.getLong(1));
                    }
                    try (ResultSet rows = select.executeQuery()) {
                        rows.next();
                        values.add(rows.getLong(1));
                    }
                }
                return values;
            });
            assertThat(read).containsExactly(11L, 11L, 12L);

            // an update first, by executeUpdate, then by execute
            int updated = JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> {
                try (PreparedStatement update =
                        c.prepareStatement("update item set quantity = quantity - ? where id = ?")) {
                    update.setLong(1, 3);
                    update.setLong(2, id);
                    int rows = update.executeUpdate();
                    update.setLong(1, 2);
                    assertThat(update.execute()).isFalse();
                    return rows + update.getUpdateCount();
                }
            });
            assertThat(updated).isEqualTo(2);
            assertThat(db.queryLong("select quantity from item where id = ?", id))
                    .isEqualTo(5);

            // execute() of a query, a statement prepared first and run second, a plain Statement first
            long fromExecute = JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> {
                PreparedStatement later = c.prepareStatement("select quantity from item where id = " + id);
                try (PreparedStatement first = c.prepareStatement("select quantity * 2 from item where id = ?")) {
                    first.setLong(1, id);
                    assertThat(first.execute()).isTrue();
                    long doubled;
                    try (ResultSet rows = first.getResultSet()) {
                        rows.next();
                        doubled = rows.getLong(1);
                    }
                    assertThat(first.getMoreResults()).isFalse();
                    assertThat(first.getUpdateCount()).isEqualTo(-1);
                    try (later;
                            ResultSet again = later.executeQuery()) {
                        again.next();
                        return doubled + again.getLong(1);
                    }
                }
            });
            assertThat(fromExecute).isEqualTo(15);
            long fromStatement = JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> {
                try (Statement statement = c.createStatement();
                        ResultSet rows = statement.executeQuery("select quantity from item where id = " + id)) {
                    rows.next();
                    return rows.getLong(1);
                }
            });
            assertThat(fromStatement).isEqualTo(5);

            // an insert of two rows first
            int inserted = JdbcFencing.inTransaction(
                    connection,
                    new FixedLease(name, token),
                    c -> update(c, "insert into item values (?, 1), (?, 1)", id + 1_000_000, id + 2_000_000));
            assertThat(inserted).isEqualTo(2);
            assertThat(fenceToken(db, name)).isEqualTo(token);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aProtectedTableAcceptsTheFirstStatementThatTravelsWithTheGuard(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        long id = IDS.incrementAndGet();
        try (Connection connection = connect(mode)) {
            int inserted = JdbcFencing.inTransaction(
                    connection,
                    new FixedLease("protected-" + id, TOKENS.addAndGet(10)),
                    c -> update(c, "insert into guarded_item values (?, 1)", id));

            assertThat(inserted).isEqualTo(1);
            assertThat(db.queryLong("select quantity from guarded_item where id = ?", id))
                    .isEqualTo(1);
            connection.setAutoCommit(false);
            try {
                assertThatThrownBy(() -> update(connection, "update guarded_item set quantity = 2 where id = ?", id))
                        .as("the mark ends with the fenced transaction")
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("guarded_item");
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    /**
     * Savepoints and fetch sizes ask for the guard alone first: a savepoint set before the guard
     * would let the work roll the guard back; a fetch size asks for rows in chunks.
     */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void aSavepointOrAFetchSizeFirstGetsTheGuardAloneAndKeepsTheFence(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        String name = "savepoint-" + IDS.incrementAndGet();
        long newer = TOKENS.addAndGet(10);
        long id = IDS.incrementAndGet();
        db.execute("insert into item values (?, 10)", id);
        try (Connection connection = connect(mode)) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, newer), c -> {
                var savepoint = c.setSavepoint();
                update(c, "update item set quantity = 11 where id = ?", id);
                c.rollback(savepoint);
                return update(c, "update item set quantity = 12 where id = ?", id);
            });
            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, newer - 1), c -> {
                        c.setSavepoint();
                        return update(c, "update item set quantity = 13 where id = ?", id);
                    }))
                    .isInstanceOf(FenceRefusedException.class);
            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, newer - 1), c -> {
                        try (PreparedStatement select = c.prepareStatement("select quantity from item where id = ?")) {
                            select.setFetchSize(1);
                            select.setLong(1, id);
                            select.executeQuery().close();
                        }
                        return update(c, "update item set quantity = 14 where id = ?", id);
                    }))
                    .isInstanceOf(FenceRefusedException.class);
            assertThat(db.queryLong("select quantity from item where id = ?", id))
                    .isEqualTo(12);
        }
    }

    /**
     * MariaDB keeps the idle bound and the mark in the session: the guard sets the bound for the
     * transaction whether it ran alone or with the first statement, and every ending puts the
     * session's own value back and clears the mark.
     */
    @ParameterizedTest
    @EnumSource(
            value = Mode.class,
            names = {"MARIADB_.*"},
            mode = EnumSource.Mode.MATCH_ALL)
    void onMariaDbTheIdleBoundHoldsInsideTheTransactionAndEveryEndingPutsTheSessionBack(Mode mode) throws Exception {
        String name = "idle-" + IDS.incrementAndGet();
        long token = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            execute(connection, "set @@session.idle_transaction_timeout = 7");
            FixedLease lease = new FixedLease(name, token, Duration.ofSeconds(20));

            long inside = JdbcFencing.inTransaction(
                    connection, lease, c -> query(c, "select @@session.idle_transaction_timeout + 0 * ?", 0));
            assertThat(inside).as("the lease's 20 s plus the 1 s grace").isEqualTo(21);
            assertSessionPutBack(connection, "after a commit");
            assertThat(connection.getAutoCommit()).isTrue();

            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, lease, c -> {
                        query(c, "select 1 + 0 * ?", 0);
                        throw new SQLException("the work failed");
                    }))
                    .hasMessage("the work failed");
            assertSessionPutBack(connection, "after a failed work");

            assertThatThrownBy(() -> JdbcFencing.inTransaction(
                            connection, new FixedLease(name, token - 1), c -> query(c, "select 1 + 0 * ?", 0)))
                    .isInstanceOf(FenceRefusedException.class);
            assertSessionPutBack(connection, "after a refusal");
        }
    }

    private static void assertSessionPutBack(Connection connection, String when) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select @@session.idle_transaction_timeout,"
                        + " @fencedlock_fenced is null, @fencedlock_idle_restore is null")) {
            rows.next();
            assertThat(rows.getLong(1))
                    .as("the session's own idle timeout " + when)
                    .isEqualTo(7);
            assertThat(rows.getBoolean(2)).as("no mark " + when).isTrue();
            assertThat(rows.getBoolean(3)).as("nothing saved " + when).isTrue();
        }
    }

    /**
     * The point of it: counted on the wire, a fenced read-modify-write makes no more round trips
     * than the same transaction unfenced. On PostgreSQL, counted as the driver's {@code Sync}
     * messages (one per round trip of the extended protocol): read, write, commit. On MariaDB,
     * counted on the connection's socket (a send followed by a read): autocommit off, read,
     * write, commit, autocommit on; the guard is one statement (the raise, the mark and the idle
     * bound), and the commit puts the session back and switches autocommit on in its round trip,
     * so that the guard, where it cannot travel with the read, is the one round trip the
     * autocommit's makes up for; where it travels with the read the fenced transaction makes one
     * round trip fewer than unfenced.
     */
    @ParameterizedTest
    @EnumSource(
            value = Mode.class,
            names = {"POSTGRESQL_SIMPLE_PROTOCOL"},
            mode = EnumSource.Mode.EXCLUDE)
    void aFencedTransactionMakesNoMoreRoundTripsThanTheSameTransactionUnfenced(Mode mode) throws Exception {
        TestDatabase db = mode.db();
        long id = IDS.incrementAndGet();
        db.execute("insert into item values (?, 10)", id);
        String name = "round-trips-" + id;
        boolean postgres = mode.kind == Kind.POSTGRESQL;
        try (Connection connection = connect(mode)) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, 1), c -> readModifyWrite(c, id));

            int fenced = roundTrips(
                    mode,
                    () -> JdbcFencing.inTransaction(connection, new FixedLease(name, 1), c -> readModifyWrite(c, id)));
            int unfenced = roundTrips(mode, () -> {
                connection.setAutoCommit(false);
                readModifyWrite(connection, id);
                connection.commit();
                connection.setAutoCommit(true);
            });

            if (postgres) {
                assertThat(unfenced).as("read, write, commit").isEqualTo(3);
            } else {
                assertThat(unfenced)
                        .as("autocommit off, read, write, commit, autocommit on")
                        .isEqualTo(5);
            }
            assertThat(fenced)
                    .as(mode + ": round trips of the fenced transaction")
                    .isEqualTo(postgres || !mode.pipelines ? unfenced : unfenced - 1);
        }
        assertThat(db.queryLong("select quantity from item where id = ?", id)).isEqualTo(13);
    }

    private static int roundTrips(Mode mode, MariaDbRoundTrips.Action action) throws Exception {
        return mode.kind == Kind.POSTGRESQL ? PostgresRoundTrips.of(action::run) : MariaDbRoundTrips.of(action);
    }

    private static int readModifyWrite(Connection connection, long id) throws SQLException {
        long quantity = query(connection, "select quantity from item where id = ?", id);
        return update(connection, "update item set quantity = ? where id = ?", quantity + 1, id);
    }

    /** Runs the statements the cases use until the server has prepared them (prepareThreshold=1). */
    private static void warmUp(Connection connection, Mode mode, String sequence) throws SQLException {
        String name = "warm-up-" + IDS.incrementAndGet();
        long token = TOKENS.addAndGet(10);
        for (int i = 0; i < 3; i++) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> nextval(c, mode, sequence));
        }
    }

    private static Connection connect(Mode mode) throws SQLException {
        return connect(mode, mode.db().schema());
    }

    /**
     * A connection of its own to {@code schema} (on MariaDB a database), with {@code mode}'s
     * properties; on MariaDB its round trips are countable.
     */
    private static Connection connect(Mode mode, String schema) throws SQLException {
        TestDatabase db = mode.db();
        Properties properties = new Properties();
        properties.setProperty("user", db.user());
        properties.setProperty("password", db.password());
        for (int i = 0; i < mode.properties.length; i += 2) {
            properties.setProperty(mode.properties[i], mode.properties[i + 1]);
        }
        String url;
        if (mode.kind == Kind.POSTGRESQL) {
            url = db.jdbcUrl().replace("currentSchema=" + db.schema(), "currentSchema=" + schema);
        } else {
            properties.setProperty("socketFactory", MariaDbRoundTrips.SOCKET_FACTORY);
            url = db.jdbcUrl().replaceFirst("/" + db.schema() + "(\\?|$)", "/" + schema + "$1");
        }
        return DriverManager.getConnection(url, properties);
    }

    private static String newSequence(Mode mode) {
        String sequence = "probe_" + IDS.incrementAndGet();
        // MariaDB: every nextval written through, so that the table says how far it has gone
        mode.db().execute("create sequence " + sequence + (mode.kind == Kind.MARIADB ? " nocache" : ""));
        return sequence;
    }

    /** How far the sequence has gone (0 before its first value): a rollback does not put it back. */
    private static long sequenceValue(Mode mode, String sequence) {
        return mode.db()
                .queryLong(
                        mode.kind == Kind.POSTGRESQL
                                ? "select case when is_called then last_value else 0 end from " + sequence
                                : "select next_not_cached_value - 1 from " + sequence);
    }

    private static long nextval(Connection connection, Mode mode, String sequence) throws SQLException {
        return query(connection, mode.nextval(sequence), 0);
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static long query(Connection connection, String sql, long parameter) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, parameter);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static int update(Connection connection, String sql, long... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setLong(i + 1, parameters[i]);
            }
            return statement.executeUpdate();
        }
    }

    private static Long fenceToken(TestDatabase db, String name) {
        return db.queryLong("select token from fencedlock_fence where lock_name = ?", name);
    }
}
