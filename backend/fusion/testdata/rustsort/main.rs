// Generates rustsort.golden.json: Rust's slice::sort_unstable_by on
// (u32, f32) pairs by score descending (Arrow's sort_to_indices of a
// Float32Array, descending), the order LanceDB's RRF reranker gives tied
// rows. Build and run: rustc -O main.rs && ./main > ../rustsort.golden.json
fn main() {
    let mut state: u64 = 0x9E3779B97F4A7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut cases = Vec::new();
    for n in [2usize, 5, 19, 20, 21, 24, 31, 32, 33, 40, 50, 63, 64, 65, 100, 127, 128, 150, 200, 257, 400] {
        for distinct in [1u64, 2, 3, 7, 40] {
            let mut v: Vec<(u32, f32)> = (0..n as u32)
                .map(|i| (i, 1.0 / (60.0 + (next() % distinct) as f32)))
                .collect();
            let scores: Vec<f32> = v.iter().map(|p| p.1).collect();
            v.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).reverse());
            let order: Vec<u32> = v.iter().map(|p| p.0).collect();
            cases.push(format!(
                "{{\"scores\":{:?},\"order\":{:?}}}",
                scores, order
            ));
        }
    }
    // Already sorted and strictly reversed inputs (the existing-run path).
    for n in [30usize, 100] {
        let asc: Vec<f32> = (0..n).map(|i| 1.0 / (60.0 + i as f32)).collect();
        let desc: Vec<f32> = asc.iter().rev().copied().collect();
        for scores in [asc, desc] {
            let mut v: Vec<(u32, f32)> = scores.iter().enumerate().map(|(i, s)| (i as u32, *s)).collect();
            v.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).reverse());
            let order: Vec<u32> = v.iter().map(|p| p.0).collect();
            cases.push(format!("{{\"scores\":{:?},\"order\":{:?}}}", scores, order));
        }
    }
    println!("[\n{}\n]", cases.join(",\n"));
}
