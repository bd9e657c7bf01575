package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** A fenced entity whose id the database generates on insert. */
@Entity
@Table(name = "fenced_log")
@EntityListeners(FencingListener.class)
public class LogEntry {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    private String message;

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected LogEntry() {}

    public LogEntry(String message) {
        this.message = message;
    }

    public Long id() {
        return id;
    }

    public long fence() {
        return fence;
    }
}
