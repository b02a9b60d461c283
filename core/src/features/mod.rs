//! Text features: named, documented functions of one turn's text alone (its words,
//! markers, affect, n-grams, content stems and language). Reading a turn in its
//! conversation is `score::context`.

pub mod affect;
pub mod grams;
pub mod language;
pub mod markers;
pub mod phrases;
pub mod similarity;
pub mod text;
pub mod words;
