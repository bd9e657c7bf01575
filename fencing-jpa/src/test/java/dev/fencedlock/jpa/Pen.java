package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An unfenced entity that a fenced {@link Crate} links through a join column in this table. */
@Entity
@Table(name = "pen")
public class Pen {
    @Id
    private long id;

    private String name;

    protected Pen() {}

    public Pen(long id, String name) {
        this.id = id;
        this.name = name;
    }
}
