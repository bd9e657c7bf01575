package dev.fencedlock.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The trigger's direct read of the session's marks gives the answer of its query in every state a
 * session passes through, whatever case the database folds variable names to, and each answer is
 * the expected one: only the transaction that ran the guard, or a session with the bypass set.
 */
class H2SessionMarksTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                ";DATABASE_TO_LOWER=TRUE",
                ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE",
                ";DATABASE_TO_UPPER=FALSE"
            })
    void readsWhatTheQueryReadsInEveryState(String settings) throws SQLException {
        String url = "jdbc:h2:mem:marks" + DATABASES.incrementAndGet() + settings;
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "create table fencedlock_fence (lock_name varchar(256) primary key, token bigint not null)");
            statement.execute("create table item (id bigint primary key, quantity bigint not null)");
            statement.execute("insert into fencedlock_fence values ('stock', 1)");
            H2SessionMarks marks = H2SessionMarks.of(connection).orElseThrow();
            GuardStatements guard = GuardStatements.of(Database.H2, "fencedlock_fence");
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
            statement.execute("set " + GuardStatements.H2_MARK + " = transaction_id()");
            seen.put("transaction marked as a remote guard's statement marks it", agree(marks, connection));
            connection.commit();
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
                            Map.entry("next transaction", false),
                            Map.entry("next transaction after a write", false),
                            Map.entry("bypass set", true),
                            Map.entry("bypass cleared", false));
        }
    }

    @Test
    void comparesDecimalTextWithANumberAsLongToStringWould() {
        long[] numbers = {0, 1, 9, 10, 11, 99, 100, 1234567890123L, Long.MAX_VALUE};
        String[] texts = {
            "",
            "0",
            "00",
            "1",
            "01",
            "9",
            "10",
            "010",
            "11",
            "99",
            "100",
            "1000",
            "-1",
            "1234567890123",
            "1234567890124",
            "x10",
            Long.toString(Long.MAX_VALUE),
            Long.MAX_VALUE + "0"
        };
        for (long number : numbers) {
            for (String text : texts) {
                assertThat(H2SessionMarks.isDecimal(text, number))
                        .as("'%s' vs %d", text, number)
                        .isEqualTo(text.equals(Long.toString(number)));
            }
        }
        assertThat(H2SessionMarks.isDecimal("-1", -1)).isFalse();
    }

    private static boolean agree(H2SessionMarks marks, Connection connection) throws SQLException {
        boolean direct = marks.fencedOrBypassed(connection).orElseThrow();
        assertThat(direct).as("direct read vs the trigger's query").isEqualTo(H2FenceTrigger.queryMarks(connection));
        return direct;
    }
}
