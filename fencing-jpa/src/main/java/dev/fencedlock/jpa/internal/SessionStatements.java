package dev.fencedlock.jpa.internal;

import org.hibernate.SessionEventListener;

/**
 * Tells a session's {@link TransactionGuard} what the session does with its JDBC connection:
 * statements prepared and executed, and the release of the connection (its start and its end). Registered on every session
 * whose transactions the guard observes. Used by the session's thread only, as the session itself;
 * a deserialized copy does nothing (the session's new transaction coordinator registers its own).
 */
final class SessionStatements implements SessionEventListener {
    private static final long serialVersionUID = 1L;

    private final transient TransactionGuard guard;

    SessionStatements(TransactionGuard guard) {
        this.guard = guard;
    }

    @Override
    public void jdbcPrepareStatementStart() {
        if (guard != null) {
            guard.beforePrepare();
        }
    }

    @Override
    public void jdbcExecuteStatementStart() {
        if (guard != null) {
            guard.beforeExecute();
        }
    }

    @Override
    public void jdbcExecuteBatchStart() {
        if (guard != null) {
            guard.beforeExecute();
        }
    }

    @Override
    public void jdbcConnectionReleaseStart() {
        if (guard != null) {
            guard.beforeRelease();
        }
    }

    @Override
    public void jdbcConnectionReleaseEnd() {
        if (guard != null) {
            guard.afterRelease();
        }
    }
}
