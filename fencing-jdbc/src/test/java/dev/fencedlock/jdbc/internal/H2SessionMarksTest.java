package dev.fencedlock.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The trigger's direct read of the session's marks gives the answer of its query in every state a
 * session passes through, whatever case the database folds variable names to, and each answer is
 * the expected one: only the transaction that ran the guard and still holds the fence row (no
 * rollback to a savepoint took it away), or a session with the bypass set.
 */
class H2SessionMarksTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** URL settings that make H2 fold identifiers each way it can. */
    static Stream<String> identifierFoldings() {
        return Stream.of(
                "", ";DATABASE_TO_LOWER=TRUE", ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE", ";DATABASE_TO_UPPER=FALSE");
    }

    @ParameterizedTest
    @MethodSource("identifierFoldings")
    void readsWhatTheQueryReadsInEveryState(String settings) throws SQLException {
        String url = "jdbc:h2:mem:marks" + DATABASES.incrementAndGet() + settings;
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "create table fencedlock_fence (lock_name varchar(256) primary key, token bigint not null)");
            statement.execute("create table item (id bigint primary key, quantity bigint not null)");
            statement.execute("insert into fencedlock_fence values ('stock', 1)");
            H2SessionMarks marks = H2SessionMarks.of(connection).orElseThrow();
            H2Fence guard = new H2Fence("fencedlock_fence");
            Map<String, Boolean> seen = new LinkedHashMap<>();

            connection.setAutoCommit(false);
            seen.put("new transaction", agree(marks, connection));
            statement.executeUpdate("insert into item values (1, 1)");
            seen.put("transaction that wrote without the guard", agree(marks, connection));
            connection.rollback();
            assertThat(guard.raiseIfNotAbove(connection, "stock", 0, null)).isFalse();
            statement.executeUpdate("insert into item values (1, 1)");
            seen.put("transaction whose guard was refused, after a write", agree(marks, connection));
            connection.rollback();
            assertThat(guard.raiseIfNotAbove(connection, "stock", 2, null)).isTrue();
            seen.put("transaction after its guard", agree(marks, connection));
            statement.executeUpdate("insert into item values (1, 1)");
            seen.put("guarded transaction after a write", agree(marks, connection));
            connection.commit();
            statement.executeUpdate("insert into item values (3, 1)");
            assertThat(guard.raiseInStatement(connection, "stock", 3)).isTrue();
            seen.put("transaction marked as a remote guard's statement marks it", agree(marks, connection));
            Savepoint afterGuard = connection.setSavepoint();
            statement.executeUpdate("insert into item values (4, 1)");
            connection.rollback(afterGuard);
            seen.put("savepoint after the guard rolled back", agree(marks, connection));
            connection.commit();
            statement.executeUpdate("insert into item values (5, 1)");
            Savepoint beforeGuard = connection.setSavepoint();
            assertThat(guard.raiseIfNotAbove(connection, "stock", 4, null)).isTrue();
            seen.put("guard inside a savepoint", agree(marks, connection));
            connection.rollback(beforeGuard);
            seen.put("guard's savepoint rolled back", agree(marks, connection));
            statement.executeUpdate("insert into item values (6, 1)");
            seen.put("guard's savepoint rolled back, after another write", agree(marks, connection));
            connection.rollback();
            statement.executeUpdate("insert into item values (7, 1)");
            // what AUTO_RECONNECT replays into a new session whose transaction drew the old number
            statement.execute("set " + H2Fence.MARK + " = concat(transaction_id(), ' 9 fencedlock_fence stock')");
            seen.put(
                    "a mark naming this transaction with no guard run (a replayed session)", direct(marks, connection));
            connection.rollback();
            seen.put("next transaction", agree(marks, connection));
            statement.executeUpdate("insert into item values (2, 1)");
            seen.put("next transaction after a write", agree(marks, connection));
            statement.execute("set " + H2FenceTrigger.BYPASS + " = 'operator fix-up'");
            seen.put("bypass set", agree(marks, connection));
            statement.execute("set " + H2FenceTrigger.BYPASS + " = null");
            seen.put("bypass cleared", agree(marks, connection));
            connection.rollback();

            assertThat(seen)
                    .containsExactly(
                            Map.entry("new transaction", false),
                            Map.entry("transaction that wrote without the guard", false),
                            Map.entry("transaction whose guard was refused, after a write", false),
                            Map.entry("transaction after its guard", true),
                            Map.entry("guarded transaction after a write", true),
                            Map.entry("transaction marked as a remote guard's statement marks it", true),
                            Map.entry("savepoint after the guard rolled back", true),
                            Map.entry("guard inside a savepoint", true),
                            Map.entry("guard's savepoint rolled back", false),
                            Map.entry("guard's savepoint rolled back, after another write", false),
                            Map.entry("a mark naming this transaction with no guard run (a replayed session)", false),
                            Map.entry("next transaction", false),
                            Map.entry("next transaction after a write", false),
                            Map.entry("bypass set", true),
                            Map.entry("bypass cleared", false));
        }
    }

    /** The direct read alone: the query, with no access to H2's store, trusts a mark whose token matches. */
    private static boolean direct(H2SessionMarks marks, Connection connection) {
        return marks.fencedOrBypassed(connection).orElseThrow();
    }

    private static boolean agree(H2SessionMarks marks, Connection connection) throws SQLException {
        boolean direct = marks.fencedOrBypassed(connection).orElseThrow();
        assertThat(direct).as("direct read vs the trigger's query").isEqualTo(H2FenceTrigger.queryMarks(connection));
        return direct;
    }
}
