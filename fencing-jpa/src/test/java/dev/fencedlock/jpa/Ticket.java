package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * A fenced entity whose id comes from a database sequence, one {@code nextval} per insert: the
 * first statement of a transaction that persists one is that {@code nextval}, which a rollback does
 * not undo. Its table and sequence are made by the tests that use it.
 */
@Entity
@Table(name = "ticket")
@EntityListeners(FencingListener.class)
public class Ticket {
    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "ticket_ids")
    @SequenceGenerator(name = "ticket_ids", sequenceName = "ticket_seq", allocationSize = 1)
    private Long id;

    private String label;

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected Ticket() {}

    public Ticket(String label) {
        this.label = label;
    }

    public Long id() {
        return id;
    }
}
