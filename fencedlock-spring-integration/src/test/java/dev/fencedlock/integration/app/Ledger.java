package dev.fencedlock.integration.app;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The work done while holding the lock: a transactional write. */
@Service
public class Ledger {
    private final JdbcTemplate jdbc;

    Ledger(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Transactional
    public void record(String value) {
        jdbc.update("update ledger set entry = ? where id = 1", value);
    }
}
