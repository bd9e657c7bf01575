package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
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
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The guard sent in one round trip with the work's first statement (PostgreSQL through pgjdbc):
 * no round trip of its own, and the work's first statement has no effect whenever the guard fails.
 * "No effect" is shown with a sequence, which a rollback does not put back: a {@code nextval} that
 * ran leaves the sequence advanced even though its transaction was rolled back. Every case runs
 * with pgjdbc's default protocol, with server-side prepared statements from the first execution
 * ({@code prepareThreshold=1}, after warm-up) and with the simple protocol.
 */
class PipelinedGuardIT {
    private static final AtomicLong IDS = new AtomicLong();
    private static final AtomicLong TOKENS = new AtomicLong(1_000);
    private static TestDatabase db;

    /** How the driver talks to the server. */
    enum Mode {
        DEFAULT(""),
        SERVER_PREPARED("&prepareThreshold=1"),
        SIMPLE_PROTOCOL("&preferQueryMode=simple");

        final String urlSuffix;

        Mode(String urlSuffix) {
            this.urlSuffix = urlSuffix;
        }
    }

    @BeforeAll
    static void database() throws SQLException {
        db = TestDatabase.create(Kind.POSTGRESQL, "fjpg", 4).migrate(FenceDatabases.MIGRATION);
        db.execute("create table item (id bigint primary key, quantity bigint not null)");
        db.execute("create table guarded_item (id bigint primary key, quantity bigint not null)");
        FencedTables.protect(db.dataSource(), "guarded_item");
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aStaleTokenRunsNothingOfTheFirstStatement(Mode mode) throws Exception {
        String name = "stale-" + IDS.incrementAndGet();
        String sequence = newSequence();
        long newer = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            warmUp(connection, sequence);
            JdbcFencing.inTransaction(connection, new FixedLease(name, newer), c -> 0);
            long before = sequenceValue(sequence);
            AtomicBoolean completed = new AtomicBoolean();

            Throwable thrown =
                    catchThrowable(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, newer - 1), c -> {
                        long value = nextval(c, sequence);
                        completed.set(true);
                        return value;
                    }));

            assertThat(thrown)
                    .isInstanceOf(FenceRefusedException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining(Long.toString(newer - 1))
                    .hasMessageContaining(Long.toString(newer));
            assertThat(completed).isFalse();
            assertThat(sequenceValue(sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
            assertThat(fenceToken(name)).isEqualTo(newer);
            assertThat(connection.getAutoCommit()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aBusyFenceRowRunsNothingOfTheFirstStatement(Mode mode) throws Exception {
        String name = "busy-" + IDS.incrementAndGet();
        String sequence = newSequence();
        long token = TOKENS.addAndGet(10);
        try (Connection holder = connect(Mode.DEFAULT);
                Connection connection = connect(mode)) {
            warmUp(connection, sequence);
            JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> 0);
            holder.setAutoCommit(false);
            Fences.enter(holder, name, token + 1);
            long before = sequenceValue(sequence);
            try {
                Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(
                        connection,
                        new FixedLease(name, token + 2, Duration.ofMillis(300)),
                        c -> nextval(c, sequence)));

                assertThat(thrown).isInstanceOf(FenceRowBusyException.class).hasMessageContaining(name);
                assertThat(sequenceValue(sequence))
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
        String name = "first-" + IDS.incrementAndGet();
        String sequence = newSequence();
        long token = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            warmUp(connection, sequence);
            long before = sequenceValue(sequence);

            long value = JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> nextval(c, sequence));

            assertThat(value).isEqualTo(before + 1);
            assertThat(sequenceValue(sequence)).isEqualTo(before + 1);
            assertThat(fenceToken(name)).isEqualTo(token);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aMissingFenceTableRunsNothingOfTheFirstStatementAndSaysHowToCreateIt(Mode mode) throws Exception {
        String sequence = newSequence();
        String emptySchema = db.schema() + "_nofence";
        db.execute("create schema if not exists " + emptySchema);
        String url = db.jdbcUrl().replace("currentSchema=" + db.schema(), "currentSchema=" + emptySchema);
        try (Connection connection = DriverManager.getConnection(url + mode.urlSuffix, db.user(), db.password())) {
            long before = sequenceValue(sequence);

            Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(
                    connection,
                    new FixedLease("missing-" + IDS.incrementAndGet(), 1),
                    c -> nextval(c, db.schema() + "." + sequence)));

            assertThat(thrown).isInstanceOf(SQLSyntaxErrorException.class).hasMessageContaining("Flyway");
            assertThat(sequenceValue(sequence))
                    .as("the first statement never ran")
                    .isEqualTo(before);
        } finally {
            db.execute("drop schema " + emptySchema + " cascade");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void theWorksOwnFailureIsThrownAsTheDriverReportedItAndNothingIsKept(Mode mode) throws Exception {
        String name = "own-failure-" + IDS.incrementAndGet();
        long token = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> 0);

            Throwable thrown = catchThrowable(() -> JdbcFencing.inTransaction(
                    connection, new FixedLease(name, token + 1), c -> query(c, "select 1 / (0 * ?)", 1)));

            assertThat(thrown).isInstanceOf(SQLException.class);
            assertThat(((SQLException) thrown).getSQLState()).isEqualTo("22012");
            assertThat(fenceToken(name))
                    .as("the guard's raise was rolled back with the work")
                    .isEqualTo(token);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aWorkThatRunsNoStatementIsStillRefusedWhenStale(Mode mode) throws Exception {
        String name = "empty-" + IDS.incrementAndGet();
        long newer = TOKENS.addAndGet(10);
        try (Connection connection = connect(mode)) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, newer), c -> 0);

            assertThatThrownBy(() -> JdbcFencing.inTransaction(connection, new FixedLease(name, newer - 1), c -> 0))
                    .isInstanceOf(FenceRefusedException.class);
            JdbcFencing.inTransaction(connection, new FixedLease(name, newer + 1), c -> 0);
            assertThat(fenceToken(name)).as("an empty work registers its token").isEqualTo(newer + 1);
        }
    }

    /** Every shape of first use the work may take, each with the results plain JDBC gives. */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void theWorksStatementsBehaveAsOnThePlainConnection(Mode mode) throws Exception {
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
            assertThat(fenceToken(name)).isEqualTo(token);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aProtectedTableAcceptsTheFirstStatementThatTravelsWithTheGuard(Mode mode) throws Exception {
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
     * The point of it: the fenced transaction makes as many round trips as the same transaction
     * unfenced, counted as the driver's {@code Sync} messages (one per round trip of the extended
     * protocol); before, the guard added one.
     */
    @Test
    void aFencedTransactionMakesNoMoreRoundTripsThanTheSameTransactionUnfenced() throws Exception {
        long id = IDS.incrementAndGet();
        db.execute("insert into item values (?, 10)", id);
        String name = "round-trips-" + id;
        for (Mode mode : new Mode[] {Mode.DEFAULT, Mode.SERVER_PREPARED}) {
            try (Connection connection = connect(mode)) {
                JdbcFencing.inTransaction(connection, new FixedLease(name, 1), c -> readModifyWrite(c, id));

                int fenced = PostgresRoundTrips.of(() ->
                        JdbcFencing.inTransaction(connection, new FixedLease(name, 1), c -> readModifyWrite(c, id)));
                int unfenced = PostgresRoundTrips.of(() -> {
                    connection.setAutoCommit(false);
                    readModifyWrite(connection, id);
                    connection.commit();
                    connection.setAutoCommit(true);
                });

                assertThat(unfenced).as("read, write, commit").isEqualTo(3);
                assertThat(fenced)
                        .as(mode + ": round trips of the fenced transaction")
                        .isEqualTo(unfenced);
            }
        }
    }

    private static int readModifyWrite(Connection connection, long id) throws SQLException {
        long quantity = query(connection, "select quantity from item where id = ?", id);
        return update(connection, "update item set quantity = ? where id = ?", quantity + 1, id);
    }

    /** Runs the statements the cases use until the server has prepared them (prepareThreshold=1). */
    private static void warmUp(Connection connection, String sequence) throws SQLException {
        String name = "warm-up-" + IDS.incrementAndGet();
        long token = TOKENS.addAndGet(10);
        for (int i = 0; i < 3; i++) {
            JdbcFencing.inTransaction(connection, new FixedLease(name, token), c -> nextval(c, sequence));
        }
    }

    private static Connection connect(Mode mode) throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl() + mode.urlSuffix, db.user(), db.password());
    }

    private static String newSequence() {
        String sequence = "probe_" + IDS.incrementAndGet();
        db.execute("create sequence " + sequence);
        return sequence;
    }

    /** How far the sequence has gone: a rollback does not put it back. */
    private static long sequenceValue(String sequence) {
        return db.queryLong("select case when is_called then last_value else 0 end from " + sequence);
    }

    private static long nextval(Connection connection, String sequence) throws SQLException {
        return query(connection, "select nextval('" + sequence + "') + 0 * ?", 0);
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

    private static Long fenceToken(String name) {
        return db.queryLong("select token from fencedlock_fence where lock_name = ?", name);
    }
}
