package dev.fencedlock.jpa.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.hibernate.exception.ConstraintViolationException;
import org.hibernate.exception.GenericJDBCException;
import org.hibernate.exception.LockAcquisitionException;
import org.hibernate.exception.LockTimeoutException;
import org.hibernate.exception.SQLGrammarException;
import org.hibernate.exception.SnapshotIsolationException;
import org.junit.jupiter.api.Test;

/** Which database failures count as a lost race, as the JDBC drivers of the three databases report them. */
class ConcurrencyFailuresTest {

    @Test
    void lockFailuresThatHibernateClassifiesAreConcurrencyFailures() {
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new LockAcquisitionException("deadlock", sql("40P01", 0))))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(
                        new LockTimeoutException("lock wait timeout", sql("HY000", 1205))))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(
                        new SnapshotIsolationException("record changed", sql("HY000", 1020), "update")))
                .isTrue();
    }

    @Test
    void transactionRollbackStatesAreConcurrencyFailuresWhateverHibernateMadeOfThem() {
        assertThat(ConcurrencyFailures.isConcurrencyFailure(
                        new GenericJDBCException("serialization failure", sql("40001", 0))))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(
                        new GenericJDBCException("MariaDB deadlock", sql("40001", 1213))))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(
                        new GenericJDBCException("H2 concurrent update", sql("90131", 90131))))
                .isTrue();
    }

    @Test
    void aStateFurtherDownTheChainCounts() {
        SQLException batch = sql("HY000", 0);
        batch.setNextException(sql("40001", 0));
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new GenericJDBCException("batch failed", batch)))
                .isTrue();
    }

    @Test
    void otherFailuresAreNot() {
        assertThat(ConcurrencyFailures.isConcurrencyFailure(
                        new ConstraintViolationException("duplicate", sql("23505", 0), "pk")))
                .isFalse();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLGrammarException("no table", sql("42P01", 0))))
                .isFalse();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new GenericJDBCException("connection reset", sql(null, 0))))
                .isFalse();
    }

    private static SQLException sql(String state, int code) {
        return new SQLException("from the driver", state, code);
    }
}
