package dev.fencedlock.shedlock.app;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The job's transactional write. */
@Service
public class ResultStore {
    private final JdbcTemplate jdbc;

    ResultStore(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Transactional
    public void record(String value) {
        jdbc.update("update job_result set result_value = ? where id = 1", value);
    }
}
