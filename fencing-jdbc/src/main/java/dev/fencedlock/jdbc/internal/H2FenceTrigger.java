package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.h2.api.Trigger;

/**
 * H2's trigger on a protected table: before each INSERT, UPDATE, DELETE or MERGE statement, refuses
 * it unless the session's {@link GuardStatements#H2_MARK mark} holds the current transaction's id
 * (the fence guard of this very transaction ran) or an operator set {@code @FENCEDLOCK_UNFENCED}.
 * A transaction that has changed nothing yet has no id, so its first write is refused unless the
 * guard ran. Loaded by H2 in the JVM that runs the database; one instance serves every session.
 */
public final class H2FenceTrigger implements Trigger {
    static final String SQLSTATE = "23F01";
    /** The session variable an operator sets to write protected tables deliberately unfenced. */
    static final String BYPASS = "@FENCEDLOCK_UNFENCED";

    private static final String CHECK = "select coalesce(cast(" + GuardStatements.H2_MARK
            + " as varchar) = transaction_id(), false) or " + BYPASS + " is not null";

    private volatile String table;
    private volatile String operations;
    private volatile Optional<H2SessionMarks> marks = Optional.empty();

    @Override
    public void init(
            Connection connection, String schemaName, String triggerName, String tableName, boolean before, int type) {
        this.table = schemaName + "." + tableName;
        this.operations = operations(type);
        this.marks = H2SessionMarks.of(connection);
    }

    @Override
    public void fire(Connection connection, Object[] oldRow, Object[] newRow) throws SQLException {
        Optional<Boolean> read = marks.flatMap(session -> session.fencedOrBypassed(connection));
        if (read.isPresent() ? read.get() : queryMarks(connection)) {
            return;
        }
        throw new SQLException(
                "fencedlock: " + operations + " on protected table " + table + " outside a fenced transaction is "
                        + "refused. Write it in a fenced transaction (JdbcFencing.inTransaction, fencing-jpa's "
                        + "Fencing.bind, Spring's @Locked) so that the fence guard runs first; an operator's "
                        + "deliberate fix-up runs SET @FENCEDLOCK_UNFENCED = '<reason>' first (for the session, until "
                        + "set to NULL)",
                SQLSTATE);
    }

    /** The marks read with a query, where {@link H2SessionMarks} cannot read the session directly. */
    static boolean queryMarks(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(CHECK)) {
            return result.next() && result.getBoolean(1);
        }
    }

    private static String operations(int type) {
        StringBuilder names = new StringBuilder();
        if ((type & INSERT) != 0) {
            names.append("INSERT");
        }
        if ((type & UPDATE) != 0) {
            names.append(names.isEmpty() ? "" : "/").append("UPDATE");
        }
        if ((type & DELETE) != 0) {
            names.append(names.isEmpty() ? "" : "/").append("DELETE");
        }
        return names.toString();
    }
}
