use xla_layout::layout;

fn main() {
    let l = layout!(bf16[8,128]<1,0:T(8,128)(2,1)S(1)T(2)>);
    let _ = l;
}
